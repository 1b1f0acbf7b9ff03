import { describe, expect, it } from 'vitest';
import { controlledSession, policyControl, type SessionRecord } from '../src/session-control.js';

const policy = { idleMs: 10 * 60_000, maxMs: 8 * 3_600_000 };
const control = policyControl(policy);

/** A record store that counts what the step asked of it. */
function store(record: SessionRecord | null) {
  const calls = { reads: 0, expired: 0, touched: [] as number[] };
  return {
    calls,
    access: {
      read: () => {
        calls.reads += 1;
        return record;
      },
      expire: () => void (calls.expired += 1),
      touch: (now: number) => void calls.touched.push(now),
    },
  };
}

describe('controlledSession: the session-control step over a record store', () => {
  const signedIn = (at: number, seen: number) => ({ user: { id: 7 }, signedInAt: at, seenAt: seen });

  it('reads once per request, however often asked', async () => {
    const { access, calls } = store(signedIn(0, 0));
    const session = controlledSession(access, control, () => 1_000);
    expect(await session.currentUser()).toEqual({ id: '7' });
    expect(await session.currentUser()).toEqual({ id: '7' });
    expect(calls.reads).toBe(1);
  });

  it('touches a record seen more than a minute ago, and only then', async () => {
    const fresh = store(signedIn(0, 0));
    await controlledSession(fresh.access, control, () => 59_999).currentUser();
    expect(fresh.calls.touched).toEqual([]);
    const old = store(signedIn(0, 0));
    await controlledSession(old.access, control, () => 60_000).currentUser();
    expect(old.calls.touched).toEqual([60_000]);
  });

  it('expires a record past the idle timeout or the lifetime: no user, the store told to forget it', async () => {
    const idle = store(signedIn(0, 0));
    expect(await controlledSession(idle.access, control, () => policy.idleMs).currentUser()).toBeUndefined();
    expect(idle.calls).toMatchObject({ expired: 1, touched: [] });
    const old = store(signedIn(0, policy.maxMs - 1));
    expect(await controlledSession(old.access, control, () => policy.maxMs).currentUser()).toBeUndefined();
    expect(old.calls.expired).toBe(1);
  });

  it('no record, or one without a user: no user, nothing expired or touched', async () => {
    for (const record of [null, {}, { user: null }]) {
      const { access, calls } = store(record);
      expect(await controlledSession(access, control, () => 5).currentUser()).toBeUndefined();
      expect(calls).toMatchObject({ expired: 0, touched: [] });
    }
  });
});
