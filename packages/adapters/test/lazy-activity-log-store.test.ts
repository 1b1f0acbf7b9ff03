import { describe, expect, it } from 'vitest';
import { ActivityStoreError, inMemoryActivityLogStore, lazyActivityLogStore, type ReadableActivityLogStore } from '../src/index.js';
import { sampleEntry } from '../src/testing/index.js';

/** An opener that fails (connection refused) until `up` is set; counts its attempts. */
function opener() {
  const state = { up: false, attempts: 0, closed: 0 };
  const inner = inMemoryActivityLogStore();
  const open = (): Promise<ReadableActivityLogStore> => {
    state.attempts += 1;
    if (!state.up) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    return Promise.resolve({
      ...inner,
      close: () => {
        state.closed += 1;
        return Promise.resolve();
      },
    });
  };
  return { open, state, inner };
}

describe('a store that connects when it can', () => {
  it('tries at once without throwing; while down every operation fails as unavailable, saying why', async () => {
    const { open, state } = opener();
    const store = lazyActivityLogStore(open);
    expect(state.attempts).toBe(1);
    const failure = await store.ping().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ActivityStoreError);
    expect(failure).toMatchObject({
      failure: 'unavailable',
      code: 'ECONNREFUSED',
      message: 'not connected: connect ECONNREFUSED 127.0.0.1:5432',
    });
    await expect(store.write([sampleEntry()])).rejects.toMatchObject({ failure: 'unavailable' });
    // The ping shared the attempt made at creation; the write made a new one.
    expect(state.attempts).toBe(2);
  });

  it('connects on the first operation after the store is back, once, and writes through', async () => {
    const { open, state, inner } = opener();
    const store = lazyActivityLogStore(open);
    await expect(store.ping()).rejects.toThrow();
    state.up = true;
    await Promise.all([store.write([sampleEntry({ entityId: 1n })]), store.write([sampleEntry({ entityId: 2n })]), store.ping()]);
    // One attempt at creation (shared by the first ping), one shared by the three operations.
    expect(state.attempts).toBe(2);
    expect((await inner.recent(10)).map((row) => row.entity_id).sort()).toEqual(['1', '2']);
    await store.close();
    expect(state.closed).toBe(1);
  });

  it('closed while a connection is still being tried: returns at once, and the connection is closed when it arrives', async () => {
    let connect: (store: ReadableActivityLogStore) => void = () => undefined;
    let closedInner = 0;
    const store = lazyActivityLogStore(() => new Promise((resolve) => (connect = resolve)));
    await store.close();
    connect({ ...inMemoryActivityLogStore(), close: () => Promise.resolve(void (closedInner += 1)) });
    await expect(store.ping()).rejects.toMatchObject({ failure: 'unavailable', code: 'CLOSED' });
    expect(closedInner).toBe(1);
  });
});

describe("a store that connects when it can: the table's column limits", () => {
  it("asks the connected store's refusalOf once it is connected; until then no entry is refused in memory", async () => {
    const tooLong = new ActivityStoreError('refused', 'TOO_LONG', 'user_agent: 300 characters for VARCHAR(255)');
    let up = false;
    const inner = inMemoryActivityLogStore();
    const store = lazyActivityLogStore(() =>
      up ? Promise.resolve({ ...inner, refusalOf: () => tooLong }) : Promise.reject(new Error('connect ECONNREFUSED')),
    );
    await expect(store.ping()).rejects.toMatchObject({ failure: 'unavailable' });
    expect(store.refusalOf?.(sampleEntry())).toBeUndefined();
    up = true;
    await store.ping();
    expect(store.refusalOf?.(sampleEntry())).toBe(tooLong);
    await store.close();
  });
});
