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

/** Thrown by a session adapter whose store cannot be reached: the caller cannot be identified. */
export class SessionUnavailableError extends PortFailure {
  override readonly name = 'SessionUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SESSION_UNAVAILABLE', message, options);
  }
}
