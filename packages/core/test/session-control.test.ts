import { describe, expect, it } from 'vitest';
import { checkSession, newSessionRecord, toSessionUser } from '../src/session-control.js';

const policy = { idleMs: 30 * 60_000, maxMs: 8 * 3_600_000 };
const T0 = 1_800_000_000_000;

describe('checkSession: idle timeout and absolute lifetime', () => {
  const record = newSessionRecord({ id: '7' }, T0);

  it('has no user and nothing to do for an empty session', () => {
    expect(checkSession(null, T0, policy)).toEqual({ user: undefined, expired: false, touch: false });
    expect(checkSession({}, T0, policy)).toEqual({ user: undefined, expired: false, touch: false });
  });

  it('returns the user of a fresh session without a write', () => {
    expect(checkSession(record, T0 + 1_000, policy)).toEqual({ user: { id: '7' }, expired: false, touch: false });
  });

  it('asks for the activity to be written back once a minute has passed', () => {
    expect(checkSession(record, T0 + 61_000, policy).touch).toBe(true);
  });

  it('expires after the idle timeout', () => {
    expect(checkSession(record, T0 + policy.idleMs - 1, policy).user).toEqual({ id: '7' });
    expect(checkSession(record, T0 + policy.idleMs, policy)).toEqual({ user: undefined, expired: true, touch: false });
  });

  it('expires after the absolute lifetime, however active', () => {
    const active = { ...record, seenAt: T0 + policy.maxMs - 1_000 };
    expect(checkSession(active, T0 + policy.maxMs - 1, policy).user).toEqual({ id: '7' });
    expect(checkSession(active, T0 + policy.maxMs, policy).expired).toBe(true);
  });

  it('treats a user without timestamps as expired', () => {
    expect(checkSession({ user: { id: '7' } }, T0, policy).expired).toBe(true);
    expect(checkSession({ user: { id: '7' }, signedInAt: '1', seenAt: T0 }, T0, policy).expired).toBe(true);
  });
});

describe('toSessionUser', () => {
  it.each<[unknown, unknown]>([
    [{ id: 7 }, { id: '7' }],
    [
      { id: 'a', name: 'Ana' },
      { id: 'a', name: 'Ana' },
    ],
    [{ id: '' }, undefined],
    [{}, undefined],
    [[], undefined],
    ['7', undefined],
    [null, undefined],
  ])('%j → %j', (value, expected) => {
    expect(toSessionUser(value)).toEqual(expected);
  });
});
