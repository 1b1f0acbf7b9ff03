/** What reading one session from PHP's store gave. */
export type StoredSession =
  /**
   * `modifiedMs`: when the store last moved the session's expiry, where it says (a file's
   * modification time; for Redis, gc_maxlifetime before the key's expiry). `final`: no write was in
   * progress (a store whose writes are atomic; a file read under PHP's lock, or unchanged for over a
   * second), so the bytes are the session's even empty or undecodable; otherwise they are read again.
   */
  | { readonly kind: 'data'; readonly bytes: Uint8Array; readonly modifiedMs?: number; readonly final: boolean }
  /** No such session (never created, destroyed, or past gc_maxlifetime). */
  | { readonly kind: 'absent' }
  /** There is something, but it must not be trusted or read: the reason is logged. */
  | { readonly kind: 'refused'; readonly reason: 'oversized' | 'not-a-regular-file' | 'foreign-owner'; readonly detail?: string };

/** The expiry is moved at most once in this long (or 1/24 of gc_maxlifetime, if shorter): PHP's GC counts in minutes. */
const TOUCH_EVERY_MS = 60_000;

/** Whether a session whose expiry was last moved at `modifiedMs` (if the store says) needs moving again `now`. */
export function expiryDue(modifiedMs: number | undefined, now: number, gcMaxLifetimeSeconds: number): boolean {
  return modifiedMs === undefined || now - modifiedMs >= Math.min(TOUCH_EVERY_MS, (gcMaxLifetimeSeconds * 1000) / 24);
}

/** What phpredis's stores' bounded read script answers: see {@link storedRedisValue}. */
export type BoundedReply = [Buffer, number] | number | null;

/**
 * A Redis value as the bounded read script returns it (null: no key; a number: its length, over the
 * bound, not sent; else the bytes and the key's time to live in ms). phpredis writes with SETEX
 * gc_maxlifetime, so the expiry last moved gc_maxlifetime before it falls; a key without one (TTL -1)
 * says nothing, and is touched. A Redis value is written whole: always final.
 */
export function storedRedisValue(reply: BoundedReply, now: number, gcMaxLifetimeSeconds: number): StoredSession {
  if (reply === null) return { kind: 'absent' };
  if (typeof reply === 'number') return { kind: 'refused', reason: 'oversized', detail: `${reply} bytes` };
  const [bytes, ttlMs] = reply;
  return ttlMs < 0
    ? { kind: 'data', bytes, final: true }
    : { kind: 'data', bytes, final: true, modifiedMs: now + ttlMs - gcMaxLifetimeSeconds * 1000 };
}

/** Tries `ping` every 100 ms until it answers, or `timeoutMs` has passed (then its last error). */
export async function readyWithin(ping: () => Promise<void>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await ping();
    } catch (error) {
      if (performance.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** How one read of a session goes. */
export interface ReadOptions {
  /** The client's address as TRUST_PROXY resolves it: bounds how many of its reads wait on PHP's locks. */
  readonly client?: string | undefined;
  /**
   * Wait for PHP's own lock, or for PHP's next write, until this `performance.now()` time at the
   * latest: asked for when a read that is not final did not decode.
   */
  readonly consistentUntil?: number;
}

/** How a conditional rewrite ended. */
export type RewriteResult = 'written' | 'unchanged' | 'yielded' | 'absent';

/**
 * One of PHP's save handlers' stores (files, phpredis), read beside PHP: the bytes of a session. Ids reaching a store have
 * been validated. Failures to reach the store are `SessionUnavailableError`s.
 */
export interface PhpSaveHandlerStore {
  /** The session's bytes (a store whose writes are atomic always reads final bytes). */
  read(id: string, options?: ReadOptions): Promise<StoredSession>;
  /**
   * Moves the session's expiry as PHP's own write would, unless the read's `modifiedMs` says it
   * moved lately (`expiryDue`); never creates the session.
   */
  touchExpiry(id: string, modifiedMs?: number): Promise<void>;
  /** Replaces the data only if nobody wrote it meanwhile; `change` returns undefined to leave it. */
  rewrite?(id: string, change: (bytes: Uint8Array) => Uint8Array | undefined): Promise<RewriteResult>;
  /** Resolves once the store can be used, or rejects after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  ping(): Promise<void>;
  describe(): string;
  close(): Promise<void>;
}
