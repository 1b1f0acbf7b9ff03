import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecords } from '../session/session-store.js';
import { forClaim, type SessionStoreClaims } from './claims.js';

export interface SessionStoreHarness {
  readonly store: SessionRecords;
  close(): Promise<void>;
}

/** How long past its maxAge a session may still be read (a loaded machine, a store's expiry sweep). */
const POLL_LIMIT_MS = 3_000;
const POLL_EVERY_MS = 10;
/** Clocks of the test and of the store (Redis's own) may differ by a few milliseconds. */
const CLOCK_SLACK_MS = 5;

/**
 * The contract of a session record store, run against every adapter of it. `claims.ttl`: the
 * store forgets a session by itself once its time to live has passed.
 */
export function testSessionStore(name: string, createHarness: () => Promise<SessionStoreHarness>, claims: SessionStoreClaims = {}): void {
  describe(`SessionRecords contract: ${name}`, () => {
    let harness: SessionStoreHarness;
    let key: string;
    beforeEach(async () => {
      harness = await createHarness();
      key = `test-${Math.random().toString(36).slice(2)}`;
    });
    afterEach(() => harness.close());

    it('has nothing under an unknown key', async () => {
      await expect(harness.store.get(key)).resolves.toBeUndefined();
    });

    it('returns what was set', async () => {
      const session = { user: { id: '7', name: 'Ana ñ' }, signedInAt: 1, seenAt: 2, _expire: 3, _maxAge: 60_000 };
      await harness.store.set(key, session, 60_000);
      await expect(harness.store.get(key)).resolves.toEqual(session);
    });

    forClaim('ttl', claims.ttl === true, () => {
      it('forgets a session once its maxAge has passed, not before', async () => {
        const maxAge = 300;
        const started = Date.now();
        await harness.store.set(key, { user: { id: '7' } }, maxAge);
        // Polled, not slept: the first read that finds nothing says when the store forgot it.
        let goneAfter: number | undefined;
        while (goneAfter === undefined && Date.now() - started < maxAge + POLL_LIMIT_MS) {
          const found = await harness.store.get(key);
          const at = Date.now() - started;
          if (found === undefined) goneAfter = at;
          else await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
        }
        expect(goneAfter, `still there ${maxAge + POLL_LIMIT_MS} ms after a maxAge of ${maxAge} ms`).toBeDefined();
        expect(goneAfter).toBeGreaterThanOrEqual(maxAge - CLOCK_SLACK_MS);
      });
    });

    it('forgets a destroyed session', async () => {
      await harness.store.set(key, { user: { id: '7' } }, 60_000);
      await harness.store.destroy(key);
      await expect(harness.store.get(key)).resolves.toBeUndefined();
    });

    it('keeps sessions apart by key', async () => {
      await harness.store.set(key, { user: { id: 'a' } }, 60_000);
      await harness.store.set(`${key}-2`, { user: { id: 'b' } }, 60_000);
      await expect(harness.store.get(key)).resolves.toEqual({ user: { id: 'a' } });
      await harness.store.destroy(`${key}-2`);
    });
  });
}
