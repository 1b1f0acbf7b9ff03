import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { bufferedActivityLog, type ActivityLogProblem, type ActivityLogStore } from '../src/index.js';
import { sampleEntry } from '../src/testing/index.js';

/** A store that records each batch and fails while `failing` is set. */
function scriptedStore() {
  const batches: ActivityEntry[][] = [];
  const state = { failing: false, closed: false };
  const store: ActivityLogStore = {
    write(entries) {
      if (state.failing) return Promise.reject(new Error('store down'));
      batches.push([...entries]);
      return Promise.resolve();
    },
    ping: () => (state.failing ? Promise.reject(new Error('store down')) : Promise.resolve()),
    close() {
      state.closed = true;
      return Promise.resolve();
    },
  };
  return { store, batches, state };
}

const entries = (n: number) => Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(i + 1) }));

describe('buffered activity log', () => {
  it('does not write during record: the write comes on a later tick', async () => {
    const { store, batches } = scriptedStore();
    const log = bufferedActivityLog(store);
    log.record(sampleEntry());
    expect(batches).toHaveLength(0);
    await log.flush();
    expect(batches).toHaveLength(1);
  });

  it('turns many entries recorded together into few batch writes', async () => {
    const { store, batches } = scriptedStore();
    const log = bufferedActivityLog(store, { maxBatch: 500 });
    for (const entry of entries(1200)) log.record(entry);
    await log.flush();
    expect(batches.map((batch) => batch.length)).toEqual([500, 500, 200]);
    expect(log.stats()).toEqual({ written: 1200, retried: 0, dropped: 0, queued: 0 });
  });

  it('retries while the store is down and loses nothing once it is back', async () => {
    const { store, batches, state } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { retryMinMs: 5, retryMaxMs: 20, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(50)) log.record(entry);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(batches).toHaveLength(0);
    state.failing = false;
    await log.flush();
    expect(batches.flat().map((e) => e.entityId)).toEqual(entries(50).map((e) => e.entityId));
    expect(log.stats().retried).toBeGreaterThanOrEqual(2);
    expect(problems.filter((p) => p.kind === 'write-failed').length).toBe(log.stats().retried);
  });

  it('drops and counts entries past the queue bound, and reports it', async () => {
    const { store, state } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { maxQueue: 10, retryMinMs: 5, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(25)) log.record(entry);
    expect(log.stats()).toMatchObject({ dropped: 15, queued: 10 });
    expect(problems).toContainEqual({ kind: 'dropped', dropped: 1 });
    state.failing = false;
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 10, dropped: 15, queued: 0 });
  });

  it('writes what is queued on close, then closes the store', async () => {
    const { store, batches, state } = scriptedStore();
    const log = bufferedActivityLog(store);
    for (const entry of entries(3)) log.record(entry);
    await log.close(1_000);
    expect(batches.flat()).toHaveLength(3);
    expect(state.closed).toBe(true);
  });

  it('gives up at the close deadline when the store stays down, and says how many were not written', async () => {
    const { store, state } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { retryMinMs: 5, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(4)) log.record(entry);
    await log.close(50);
    expect(problems).toContainEqual({ kind: 'unwritten-at-close', lost: 4 });
    expect(state.closed).toBe(true);
  });

  it('keeps writing when the problem reporter throws', async () => {
    const { store, batches, state } = scriptedStore();
    const log = bufferedActivityLog(store, {
      retryMinMs: 5,
      onProblem: () => {
        throw new Error('reporter broke');
      },
    });
    state.failing = true;
    log.record(sampleEntry());
    await new Promise((resolve) => setTimeout(resolve, 20));
    state.failing = false;
    await log.flush();
    expect(batches).toHaveLength(1);
  });
});
