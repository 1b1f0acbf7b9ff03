/**
 * Why a port could not do its part, as a code (the way got's errors carry one): the one vocabulary of
 * failures. The log writes it as it is; a channel maps it to its own terms (a status, a metric label,
 * a result row), as HTTP's metric table maps outcomes to coarser labels.
 */
export type FailureCode =
  /** The session store cannot be reached: the caller cannot be identified. */
  | 'SESSION_UNAVAILABLE'
  /** No token could be had for the upstream. */
  | 'TOKEN_UNAVAILABLE'
  /** The upstream refused the token (401): the change was not applied. */
  | 'TOKEN_REJECTED'
  /** No connection to the upstream could be made: nothing was sent, so a retry is safe. */
  | 'UPSTREAM_UNREACHABLE'
  /** No answer from the upstream within the time limit. */
  | 'UPSTREAM_TIMEOUT'
  /** The upstream refused, reset or dropped the connection before a whole answer arrived. */
  | 'UPSTREAM_CONNECTION'
  /** The upstream's answer is not JSON (or too large to read). */
  | 'UPSTREAM_INVALID_BODY';

/** A port's failure. Adapters throw its subclasses, translated from their libraries' errors. */
export class PortFailure extends Error {
  override readonly name: string = 'PortFailure';
  constructor(
    readonly code: FailureCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
