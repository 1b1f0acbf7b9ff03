import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../session/session-store.js';

export interface SessionStoreHarness {
  readonly store: SessionStore;
  close(): Promise<void>;
}

const opts = { rolling: false, changed: true };

/** The contract of a koa-session external store, run against every adapter of it. */
export function testSessionStore(name: string, createHarness: () => Promise<SessionStoreHarness>): void {
  describe(`SessionStore contract: ${name}`, () => {
    let harness: SessionStoreHarness;
    let key: string;
    beforeEach(async () => {
      harness = await createHarness();
      key = `test-${Math.random().toString(36).slice(2)}`;
    });
    afterEach(() => harness.close());

    it('has nothing under an unknown key', async () => {
      await expect(harness.store.get(key, 60_000, opts)).resolves.toBeUndefined();
    });

    it('returns what was set', async () => {
      const session = { user: { id: '7', name: 'Ana ñ' }, signedInAt: 1, seenAt: 2, _expire: 3, _maxAge: 60_000 };
      await harness.store.set(key, session, 60_000, opts);
      await expect(harness.store.get(key, 60_000, opts)).resolves.toEqual(session);
    });

    it('forgets a session after its maxAge', async () => {
      await harness.store.set(key, { user: { id: '7' } }, 80, opts);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(harness.store.get(key, 80, opts)).resolves.toBeUndefined();
    });

    it("keeps a browser-session ('session' maxAge) session", async () => {
      await harness.store.set(key, { user: { id: '7' } }, 'session', opts);
      await expect(harness.store.get(key, 'session', opts)).resolves.toEqual({ user: { id: '7' } });
    });

    it('forgets a destroyed session', async () => {
      await harness.store.set(key, { user: { id: '7' } }, 60_000, opts);
      await harness.store.destroy(key, {});
      await expect(harness.store.get(key, 60_000, opts)).resolves.toBeUndefined();
    });

    it('keeps sessions apart by key', async () => {
      await harness.store.set(key, { user: { id: 'a' } }, 60_000, opts);
      await harness.store.set(`${key}-2`, { user: { id: 'b' } }, 60_000, opts);
      await expect(harness.store.get(key, 60_000, opts)).resolves.toEqual({ user: { id: 'a' } });
      await harness.store.destroy(`${key}-2`, {});
    });
  });
}
