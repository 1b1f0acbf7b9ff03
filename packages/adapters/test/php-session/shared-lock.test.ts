import { describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { sharedLocks, type LockWaiter, type SharedLock } from '../../src/php-session/shared-lock.js';

/** A lock PHP holds until `release()`: every attempt fails until then. */
function heldLock() {
  let held = true;
  return {
    attempt: () => !held,
    release: () => {
      held = false;
    },
  };
}

describe('sharedLocks: who may wait on PHP’s locks', () => {
  const never = () => false;

  /** Starts `waiters` takes on one held lock; resolves with the ones turned away at once, and the rest's results once released. */
  async function takeAll(locks: ReturnType<typeof sharedLocks>, waiters: LockWaiter[]) {
    const lock = heldLock();
    const results: (SharedLock | undefined)[] = waiters.map(() => undefined);
    const taken = waiters.map((waiter, i) => locks.take(waiter, lock.attempt, never).then((result) => (results[i] = result)));
    // A refusal comes before any pause: one turn of the event loop settles every one of them.
    await new Promise((resolve) => setImmediate(resolve));
    const busy = results.map((result, i) => (result === 'busy' ? i : -1)).filter((i) => i >= 0);
    lock.release();
    await Promise.all(taken);
    return { busy, results };
  }

  it('one session: at most 6 wait, as many as a browser sends at once; the rest are busy at once', async () => {
    let most = 0;
    const locks = sharedLocks({ maxWaiters: 128, waitMs: 10_000, onWaiters: (count) => (most = Math.max(most, count)) });
    const { busy, results } = await takeAll(
      locks,
      Array.from({ length: 10 }, (_, i) => ({ session: 'a', client: `10.0.0.${i}` })),
    );
    expect(busy).toEqual([6, 7, 8, 9]);
    expect(results.filter((result) => result === 'locked')).toHaveLength(6);
    expect(most).toBe(6);
  });

  it('one client: at most 8 wait across its sessions; another client on the same sessions still waits', async () => {
    const locks = sharedLocks({ maxWaiters: 128, waitMs: 10_000 });
    const attacker = Array.from({ length: 12 }, (_, i) => ({ session: `s${i % 3}`, client: '203.0.113.9' }));
    const { busy } = await takeAll(locks, [
      ...attacker,
      { session: 's0', client: '198.51.100.1' },
      { session: 'v', client: '198.51.100.2' },
    ]);
    expect(busy).toEqual([8, 9, 10, 11]);
  });

  it('in all: at most maxWaiters wait, whoever asks', async () => {
    const locks = sharedLocks({ maxWaiters: 5, waitMs: 10_000 });
    const { busy } = await takeAll(
      locks,
      Array.from({ length: 7 }, (_, i) => ({ session: `s${i}`, client: `10.0.0.${i}` })),
    );
    expect(busy).toEqual([5, 6]);
  });

  it('the bounds count waiters, not requests: a wait that ends frees its place for the session and the client', async () => {
    const locks = sharedLocks({ maxWaiters: 128, maxPerSession: 1, maxPerClient: 1, waitMs: 10_000 });
    const waiter = { session: 'a', client: '10.0.0.1' };
    expect(await takeAll(locks, [waiter, waiter])).toMatchObject({ busy: [1] });
    expect(await takeAll(locks, [waiter])).toMatchObject({ busy: [] });
  });

  it('a lock free at the first attempt takes no place; a busy refusal says retry in a second, a timeout does not', async () => {
    const locks = sharedLocks({ maxWaiters: 1, maxPerSession: 1, waitMs: 10_000 });
    const held = heldLock();
    const waiting = locks.take({ session: 'a' }, held.attempt, never);
    expect(await locks.take({ session: 'a' }, () => true, never)).toBe('locked');
    expect(await locks.take({ session: 'b' }, held.attempt, never)).toBe('busy');
    held.release();
    expect(await waiting).toBe('locked');
    expect(locks.refusal('busy')).toMatchObject({ name: SessionUnavailableError.name, retryAfterSeconds: 1, reason: 'busy' });
    expect(locks.refusal('timeout')).toMatchObject({ retryAfterSeconds: undefined, reason: 'locked' });
  });

  it('a change ends the wait; the waiter’s deadline bounds it', async () => {
    const locks = sharedLocks({ maxWaiters: 8, waitMs: 10_000 });
    let changed = false;
    const waiting = locks.take({ session: 'a' }, never, () => changed);
    changed = true;
    expect(await waiting).toBe('changed');
    const started = performance.now();
    expect(await locks.take({ session: 'a', deadline: performance.now() + 30 }, never, never)).toBe('timeout');
    // Well under the 10 s wait of the options: the deadline given ended it.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
