import { PortFailure } from '../failure.js';
import type { SessionUser } from './session.js';

/** Where the bearer token for the upstream comes from. */
export interface TokenSource {
  /** A token for a request made on behalf of `user`. Fails only with {@link TokenUnavailableError}. */
  token(user: SessionUser): Promise<string>;
  /**
   * Called after the upstream answered 401 to `rejected`: a fresh token, or
   * `undefined` when this source cannot issue one. Sources that never can omit it.
   */
  refresh?(user: SessionUser, rejected: string): Promise<string | undefined>;
}

export class TokenUnavailableError extends PortFailure {
  override readonly name = 'TokenUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('TOKEN_UNAVAILABLE', message, options);
  }
}
