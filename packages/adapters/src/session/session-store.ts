/**
 * A shared store of session data by session key, as koa-session's external
 * `store` option expects it. Failures to reach the store are
 * `SessionUnavailableError`s.
 */
export interface SessionStore {
  get(key: string, maxAge: number | 'session', options: { rolling: boolean; ctx?: unknown }): Promise<unknown>;
  /** Keeps `session` for `maxAge` ms (`'session'`: a browser-session cookie). */
  set(key: string, session: unknown, maxAge: number | 'session', options: { rolling: boolean; changed: boolean; ctx?: unknown }): Promise<void>;
  destroy(key: string, options: { ctx?: unknown }): Promise<void>;
}
