import type { Session } from '@cotizaciones/core';

/** What every session store has, whatever the mode: the channel's lifecycle of it. */
export interface SessionStoreLifecycle {
  /** Resolves once the store can be used, or rejects after `timeoutMs` (a store down at start-up). */
  ready(timeoutMs: number): Promise<void>;
  /** Resolves when the store answers (readiness); rejects with SessionUnavailableError. */
  ping(): Promise<void>;
  /** One line for the start-up log (complete once `ready` has settled); no secret. */
  describe(): string;
  close(): Promise<void>;
}

/** The records of the service's own sessions by session id. Failures to reach the store are `SessionUnavailableError`s. */
export interface SessionRecords {
  /** The record kept under `id`, or undefined (never set, destroyed or expired). */
  get(id: string): Promise<unknown>;
  /** Keeps `record` under `id` for `ttlMs` milliseconds. */
  set(id: string, record: unknown, ttlMs: number): Promise<void>;
  destroy(id: string): Promise<void>;
}

/** SESSION_STORE=cookie: the service's own record is the signed cookie itself; nothing to reach. */
export interface CookieSessionStore extends SessionStoreLifecycle {
  readonly kind: 'cookie';
}

/** SESSION_STORE=redis (or memory, in tests): the service's own records, under the cookie's id. */
export interface RecordSessionStore extends SessionStoreLifecycle, SessionRecords {
  readonly kind: 'records';
  /** Where the records live, as a span says it: set from the backend's entry when the runtime opens it. Unset: `records`. */
  readonly mode?: string;
}

/** SESSION_STORE=php: the PHP app's own sessions, found from a request's cookies; the store applies the PHP app's rules. */
export interface PhpSessionStore extends SessionStoreLifecycle {
  readonly kind: 'php';
  /** PHP's `session.save_handler`: where the PHP app keeps them (an entry of `SAVE_HANDLERS`, usually). */
  readonly handler: string;
  /** Where the sessions live, as a span says it: the handler entry's. */
  readonly mode: string;
  /** Who a connection error is about, as a log line names it: the handler entry's. */
  readonly logName: string;
  readonly cookieName: string;
  /**
   * The session of a request, from its `Cookie` header; read once, on first use. `client`: the
   * request's address as TRUST_PROXY resolves it, which bounds how many of its reads wait on PHP's locks.
   */
  sessionFor(cookieHeader: string | undefined, client?: string): Session;
}

/**
 * Where the sessions of one mode live: one shape for every mode (one lifecycle; the mode's own access
 * told apart by `kind`), so the channel that binds sessions to requests picks in one place.
 */
export type SessionStore = CookieSessionStore | RecordSessionStore | PhpSessionStore;

/** The record lives in the signed cookie: the store is always ready and has nothing to close. */
export function cookieSessionStore(): CookieSessionStore {
  return {
    kind: 'cookie',
    ready: () => Promise.resolve(),
    ping: () => Promise.resolve(),
    describe: () => 'signed cookies',
    close: () => Promise.resolve(),
  };
}
