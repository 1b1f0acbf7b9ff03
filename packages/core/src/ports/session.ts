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
 * Thrown by a session adapter whose store cannot be reached, or is too busy to be waited for: the
 * caller cannot be identified. `retryAfterSeconds`: the adapter turned the request away to stay
 * within its bounds, and asking again that much later is likely to work.
 */
export class SessionUnavailableError extends PortFailure {
  override readonly name = 'SessionUnavailableError';
  readonly retryAfterSeconds?: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('SESSION_UNAVAILABLE', message, options);
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
