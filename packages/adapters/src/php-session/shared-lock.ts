import { setTimeout as pause } from 'node:timers/promises';

/**
 * `changed`: the file changed while the lock was waited for (PHP wrote it, and may hold the lock on
 * for its next request); `busy`: as many requests as allowed already wait on PHP's locks, this one
 * was not made to wait.
 */
export type SharedLock = 'locked' | 'changed' | 'timeout' | 'busy';

export interface SharedLocks {
  /**
   * Takes PHP's lock, shared, on an open session file (`attempt`: one non-blocking try; for
   * php-memcached, whether its lock key is gone), waiting at most `waitMs` for a PHP request holding
   * it, or until `changed()` says the session changed meanwhile.
   */
  take(attempt: () => boolean | Promise<boolean>, changed: () => boolean | Promise<boolean>): Promise<SharedLock>;
}

export interface SharedLocksOptions {
  /** How many requests may wait on PHP's locks at once, across all sessions. */
  readonly maxWaiters: number;
  readonly waitMs: number;
  /** Told each time the number of requests waiting changes. */
  readonly onWaiters?: (waiting: number) => void;
}

const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/**
 * PHP's lock, shared, taken without a process and without blocking the event loop: a non-blocking
 * flock, tried again after pauses that grow from a few milliseconds (a PHP write is that short) to
 * tens (a PHP request holding its session for long), until the wait runs out. Polling never wins
 * the lock from PHP requests that follow each other on one session with no gap between them (a
 * blocked flock would be woken at the release): a change to the file ends the wait too, and the
 * caller reads the new version. The waiting requests
 * are bounded across all sessions: each holds a descriptor and a timer, and past the bound one more
 * would only add to what a stuck PHP request costs everyone else.
 */
export function sharedLocks({ maxWaiters, waitMs, onWaiters }: SharedLocksOptions): SharedLocks {
  let waiting = 0;
  const count = (change: number) => {
    waiting += change;
    onWaiters?.(waiting);
  };
  return {
    async take(attempt, changed) {
      if (await attempt()) return 'locked';
      if (waiting >= maxWaiters) return 'busy';
      count(1);
      try {
        const deadline = performance.now() + waitMs;
        for (let next = FIRST_PAUSE_MS; ; next = Math.min(next * 2, LONGEST_PAUSE_MS)) {
          const left = deadline - performance.now();
          if (left <= 0) return 'timeout';
          await pause(Math.min(next, left));
          if (await attempt()) return 'locked';
          if (await changed()) return 'changed';
        }
      } finally {
        count(-1);
      }
    },
  };
}
