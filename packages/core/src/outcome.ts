import type { PortFailure } from './failure.js';
import { SessionUnavailableError } from './ports/session.js';
import { MESSAGES, failure, type Reply } from './reply.js';

/**
 * How a call of an operation ended: the one vocabulary of outcomes, one path per outcome (decision
 * 034). The logs and spans write it as it is; a channel may map it to coarser terms of its own: HTTP's
 * metric table (several outcomes to one `outcome` label, spelled as dashboards know it), the CLI's
 * result rows (`ok`, `rejected`, `invalid`, `failed`).
 */
export type OutcomeKind =
  | 'ok'
  | 'not-authenticated'
  | 'invalid-params'
  /** The upstream answered, but not with `ok: true`. */
  | 'upstream-rejected'
  /** The upstream could not be reached or gave an unreadable answer: the change may or may not be applied. */
  | 'upstream-failed'
  /** The upstream refused the token (401): the change was not applied. */
  | 'token-rejected'
  | 'token-unavailable'
  /** The session store could not be reached: nothing was sent. */
  | 'session-unavailable';

/** What a use case did: the reply for the caller, and for the log what happened and why (a failure's code). */
export interface Outcome {
  readonly reply: Reply;
  readonly kind: OutcomeKind;
  readonly cause?: PortFailure | Error;
}

/**
 * The outcome of a call whose caller could not be identified (the session store could not be
 * reached), for every route that reads a session. Any other error is no outcome: it is thrown on.
 */
export function sessionUnavailable(error: unknown): Outcome {
  if (!(error instanceof SessionUnavailableError)) throw error;
  return { reply: failure(MESSAGES.unavailable), kind: 'session-unavailable', cause: error };
}
