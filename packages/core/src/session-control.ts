import type { Session, SessionUser } from './ports/session.js';

/** How long a signed-in session lives. */
export interface SessionPolicy {
  /** Signed out after this long without a request. */
  readonly idleMs: number;
  /** Signed out this long after signing in, however active. */
  readonly maxMs: number;
}

/** What a session store keeps for a signed-in user (epoch milliseconds). */
export interface SessionRecord {
  user?: unknown;
  signedInAt?: unknown;
  seenAt?: unknown;
}

export interface SessionCheck {
  readonly user: SessionUser | undefined;
  /** The record held a user that is no longer valid: the store should forget it. */
  readonly expired: boolean;
  /** Activity should be written back (the last write is old enough to matter). */
  readonly touch: boolean;
}

const NONE: SessionCheck = { user: undefined, expired: false, touch: false };

/**
 * The session-control step: a user whose session is past the idle timeout or
 * the absolute lifetime is treated as absent. `seenAt` is only rewritten when
 * it is a minute (or half the idle timeout) old, so a busy user does not cause
 * a store write per request.
 */
export function checkSession(record: SessionRecord | null | undefined, now: number, policy: SessionPolicy): SessionCheck {
  if (!record || record.user === undefined || record.user === null) return NONE;
  const user = toSessionUser(record.user);
  const { signedInAt, seenAt } = record;
  if (
    !user ||
    typeof signedInAt !== 'number' ||
    typeof seenAt !== 'number' ||
    now - signedInAt >= policy.maxMs ||
    now - seenAt >= policy.idleMs
  ) {
    return { user: undefined, expired: true, touch: false };
  }
  const touchAfter = Math.min(60_000, policy.idleMs / 2);
  return { user, expired: false, touch: now - seenAt >= touchAfter };
}

/** A session user is an object with a non-empty `id` (string or number); the id is read as text. */
export function toSessionUser(value: unknown): SessionUser | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id: unknown = (value as { id?: unknown }).id;
  if ((typeof id !== 'string' && typeof id !== 'number') || id === '') return undefined;
  return { ...(value as Record<string, unknown>), id: String(id) };
}

/** A fresh record for a user who just signed in. */
export function newSessionRecord(user: SessionUser, now: number): Required<SessionRecord> {
  return { user, signedInAt: now, seenAt: now };
}

/** What a stored record means at `now` (epoch ms): a session policy. */
export type SessionControl<R> = (record: R | null | undefined, now: number) => SessionCheck;

/** The service's own policy over its records: {@link checkSession} with an idle timeout and a lifetime. */
export function policyControl(policy: SessionPolicy): SessionControl<SessionRecord> {
  return (record, now) => checkSession(record, now, policy);
}

/** One request's view of a stored session record, in the store's own terms. */
export interface SessionRecordAccess<R = SessionRecord> {
  /** The record as stored, or nothing. */
  read(): R | null | undefined | Promise<R | null | undefined>;
  /** The record is no longer valid: forget it (or, where the store is someone else's, say so). */
  expire(): void;
  /** The user was active at `now` (epoch ms): keep that. */
  touch(now: number): void | Promise<void>;
}

/**
 * A session policy applied to a record store: read the record, expire it, touch it. The one
 * place every mode goes through (signed cookie, Redis, the PHP app's store), whatever the
 * channel; the verdict is reached once, however often the user is asked for.
 */
export function controlledSession<R>(access: SessionRecordAccess<R>, control: SessionControl<R>, now: () => number = Date.now): Session {
  let answer: Promise<SessionUser | undefined> | undefined;
  const decide = async (): Promise<SessionUser | undefined> => {
    const record = await access.read();
    const at = now();
    const check = control(record, at);
    if (check.expired) access.expire();
    else if (check.touch) await access.touch(at);
    return check.user;
  };
  return {
    currentUser: () => (answer ??= decide()),
  };
}
