import { describe } from 'vitest';

/**
 * Capability claims: the optional promises an adapter makes, stated by whoever runs a port suite
 * against it. The tests of a claimed capability run and can fail; the tests of an unclaimed one are
 * registered as skipped, under a name that says which claim is missing — never counted as passed.
 * Promises every adapter of a port must keep are not claims: their tests always run.
 */

/** The Session port (`currentUser()`). */
export interface SessionClaims {
  /** Signed out after `idleMs` without a request, on the clock the harness injects (`advance`). */
  readonly idleTimeout?: {
    readonly idleMs: number;
    /** The clock's resolution as the adapter reads it (PHP keeps seconds: 1000). Default 1. */
    readonly precisionMs?: number;
    /** A request that finds the user signed in counts as activity: the idle timeout starts again. */
    readonly renewedByUse?: boolean;
  };
  /** Signed out `maxMs` after signing in, however active, on the injected clock. */
  readonly lifetime?: { readonly maxMs: number; readonly precisionMs?: number };
  /** A session reference the service did not issue (altered signature, altered or unknown id) has no user (`forge`). */
  readonly forgery?: boolean;
}

/** A session store (koa-session's external store: get, set, destroy). */
export interface SessionStoreClaims {
  /** Forgets a session by itself once its `maxAge` has passed (Redis TTL, an expiry check on read). */
  readonly ttl?: boolean;
}

/** The TokenSource port. */
export interface TokenSourceClaims {
  /** After the upstream answers 401 to a token, `refresh()` issues a different one, which `token()` then gives. */
  readonly refresh?: boolean;
}

/** The ActivityLog port. */
export interface ActivityLogClaims {
  /** What was flushed survives closing the log and opening it again over the same storage (`reopen`). */
  readonly durable?: boolean;
}

/** The Upstream port. */
export interface UpstreamClaims {
  /**
   * Talks to the upstream over a network connection: a connection that is never established, dropped or
   * reset mid-answer, or a body that drips and never ends are real cases with their own deadline and error.
   */
  readonly network?: boolean;
}

/**
 * Registers `body` under a describe block named for `claim`: run when `claimed`, otherwise skipped with
 * the reason in its name, so a report shows "not claimed" rather than a pass.
 */
export function forClaim(claim: string, claimed: boolean, body: () => void): void {
  if (claimed) describe(`claims ${claim}`, body);
  else describe.skip(`${claim}: not claimed by this adapter, so not tested`, body);
}

/**
 * The harness's `method`, bound to it; fails the test (never skips it) when an adapter claims a
 * capability whose test needs a method its harness does not provide.
 */
export function required<T extends object, K extends keyof T>(target: T, method: K, claim: string): NonNullable<T[K]> {
  const value = target[method];
  if (typeof value !== 'function') throw new Error(`the adapter claims ${claim}, but ${String(method)}() is missing`);
  return (value as (...args: unknown[]) => unknown).bind(target) as NonNullable<T[K]>;
}
