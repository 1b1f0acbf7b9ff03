/**
 * Why a port could not do its part, as a code (the way got's errors carry one): the one vocabulary of
 * failures. The logs and the CLI's result rows write it as it is; a channel may map it to terms of
 * its own (a status, or a metric label: HTTP's `upstream_failures_total` counts `UPSTREAM_INVALID_BODY`
 * as `kind="invalid_body"`).
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
