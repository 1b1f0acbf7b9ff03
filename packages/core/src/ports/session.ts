import { PortFailure } from '../failure.js';

/** The signed-in user as the session holds it: at least an `id`. */
export interface SessionUser {
  readonly id: string;
  readonly [key: string]: unknown;
}

/** The caller's session: who is signed in, if anyone. */
export interface Session {
  /** The signed-in user, or `undefined` when the session is absent, empty, expired or forged. */
  currentUser(): Promise<SessionUser | undefined>;
}

/**
 * Why the caller could not be identified: the store cannot be reached (`unreachable`), the adapter
 * turned the request away to stay within its bounds (`busy`), or the PHP app held the session's lock
 * past the wait's bound (`locked`). An operator acts on each differently, so each is told apart.
 */
export type SessionUnavailableReason = 'unreachable' | 'busy' | 'locked';

/**
 * Thrown by a session adapter whose store cannot be reached, or is too busy to be waited for: the
 * caller cannot be identified. `retryAfterSeconds`: the adapter turned the request away to stay
 * within its bounds, and asking again that much later is likely to work.
 */
export class SessionUnavailableError extends PortFailure {
  override readonly name = 'SessionUnavailableError';
  readonly reason: SessionUnavailableReason;
  readonly retryAfterSeconds?: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number; reason?: SessionUnavailableReason }) {
    super('SESSION_UNAVAILABLE', message, options);
    this.reason = options?.reason ?? 'unreachable';
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
