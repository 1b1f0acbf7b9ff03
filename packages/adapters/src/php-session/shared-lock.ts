import { setTimeout as pause } from 'node:timers/promises';
import { SessionUnavailableError } from '@cotizaciones/core';

/**
 * `changed`: the file changed while the lock was waited for (PHP wrote it, and may hold the lock on
 * for its next request); `busy`: as many requests as allowed already wait on PHP's locks (for this
 * session, from this client, or in all), this one was not made to wait.
 */
export type SharedLock = 'locked' | 'changed' | 'timeout' | 'busy';

/** Who waits: the session id, and the client's address (as TRUST_PROXY resolves it) when known. */
export interface LockWaiter {
  readonly session: string;
  readonly client?: string | undefined;
  /** When the wait ends at the latest (`performance.now()` time); `waitMs` from now if not given. */
  readonly deadline?: number;
}

export interface SharedLocks {
  /**
   * Takes PHP's lock, shared, on an open session file (`attempt`: one non-blocking try; for
   * php-memcached, whether its lock key is gone), waiting at most until the waiter's deadline for a
   * PHP request holding it, or until `changed()` says the session changed meanwhile.
   */
  take(waiter: LockWaiter, attempt: () => boolean | Promise<boolean>, changed: () => boolean | Promise<boolean>): Promise<SharedLock>;
  /** The error a read answers with when `take` gave `timeout` or `busy`. */
  refusal(lock: 'timeout' | 'busy'): SessionUnavailableError;
}

export interface SharedLocksOptions {
  /** How many requests may wait on PHP's locks at once, across all sessions. */
  readonly maxWaiters: number;
  /** How many of them for one session (default {@link PER_SESSION_WAITERS}). */
  readonly maxPerSession?: number;
  /** How many of them from one client (default {@link PER_CLIENT_WAITERS}). */
  readonly maxPerClient?: number;
  readonly waitMs: number;
  /** Told each time the number of requests waiting changes. */
  readonly onWaiters?: (waiting: number) => void;
}

/** How long a read waits for a PHP request holding the session's lock, as a second PHP request would; then 503. */
export const LOCK_WAIT_MS = 2_000;
/** As many requests as a browser sends to one host at once: one user's own page never meets the bound. */
export const PER_SESSION_WAITERS = 6;
/** A few more than one session's: a user with two tabs on two sessions, or a few users behind one address. */
export const PER_CLIENT_WAITERS = 8;
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/**
 * PHP's lock, shared, taken without a process and without blocking the event loop: a non-blocking
 * flock, tried again after pauses that grow from a few milliseconds (a PHP write is that short) to
 * tens (a PHP request holding its session for long), until the wait runs out. Polling never wins
 * the lock from PHP requests that follow each other on one session with no gap between them (a
 * blocked flock would be woken at the release): a change to the file ends the wait too, and the
 * caller reads the new version. The waiting requests are bounded per session, per client and across
 * all sessions: a waiter costs a descriptor and a timer, so the instance-wide bound can be large, and
 * the two smaller ones keep one client holding PHP's lock on sessions of its own from taking it.
 */
export function sharedLocks({
  maxWaiters,
  maxPerSession = PER_SESSION_WAITERS,
  maxPerClient = PER_CLIENT_WAITERS,
  waitMs,
  onWaiters,
}: SharedLocksOptions): SharedLocks {
  let waiting = 0;
  const perSession = new Map<string, number>();
  const perClient = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string, change: number) => {
    const count = (counts.get(key) ?? 0) + change;
    if (count === 0) counts.delete(key);
    else counts.set(key, count);
  };
  const count = ({ session, client }: LockWaiter, change: number) => {
    waiting += change;
    add(perSession, session, change);
    if (client !== undefined) add(perClient, client, change);
    onWaiters?.(waiting);
  };
  const full = ({ session, client }: LockWaiter) =>
    waiting >= maxWaiters ||
    (perSession.get(session) ?? 0) >= maxPerSession ||
    (client !== undefined && (perClient.get(client) ?? 0) >= maxPerClient);

  return {
    async take(waiter, attempt, changed) {
      if (await attempt()) return 'locked';
      if (full(waiter)) return 'busy';
      count(waiter, 1);
      try {
        const deadline = waiter.deadline ?? performance.now() + waitMs;
        for (let next = FIRST_PAUSE_MS; ; next = Math.min(next * 2, LONGEST_PAUSE_MS)) {
          const left = deadline - performance.now();
          if (left <= 0) return 'timeout';
          await pause(Math.min(next, left));
          if (await attempt()) return 'locked';
          if (await changed()) return 'changed';
        }
      } finally {
        count(waiter, -1);
      }
    },
    refusal(lock) {
      return lock === 'timeout'
        ? new SessionUnavailableError(`a PHP request has held this session's lock for over ${waitMs} ms`, { reason: 'locked' })
        : new SessionUnavailableError(
            `too many requests wait on PHP's session locks (at most ${maxPerSession} for a session, ${maxPerClient} from a client, ${maxWaiters} in all)`,
            { retryAfterSeconds: 1, reason: 'busy' },
          );
    },
  };
}
