import type { Reply } from './reply.js';

export type OutcomeKind =
  | 'ok'
  | 'not-authenticated'
  | 'invalid-params'
  /** The upstream answered, but not with `ok: true`. */
  | 'upstream-rejected'
  /** The upstream could not be reached or gave an unreadable answer. */
  | 'upstream-failed'
  | 'token-unavailable';

/** What a use case did: the reply for the caller, and for the server log what happened and why. */
export interface Outcome {
  readonly reply: Reply;
  readonly kind: OutcomeKind;
  readonly cause?: Error;
}
