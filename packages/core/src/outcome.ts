import type { PortFailure } from './failure.js';
import type { Reply } from './reply.js';

/** How a call of an operation ended: the one vocabulary every channel maps (never renames). */
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
