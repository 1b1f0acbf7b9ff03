/**
 * A shared store of session records by session id, for the service's own sessions (any
 * channel's binding turns its framework's store interface into this). Failures to reach the
 * store are `SessionUnavailableError`s.
 */
export interface SessionStore {
  /** The record kept under `id`, or undefined (never set, destroyed or expired). */
  get(id: string): Promise<unknown>;
  /** Keeps `record` under `id` for `ttlMs` milliseconds. */
  set(id: string, record: unknown, ttlMs: number): Promise<void>;
  destroy(id: string): Promise<void>;
}
