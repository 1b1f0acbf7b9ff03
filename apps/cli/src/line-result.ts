import type { FailureCode, OutcomeKind } from '@cotizaciones/core';

/** What became of one line, as the results file and the summary say it. */
export type LineOutcome = 'ok' | 'rejected' | 'failed' | 'invalid' | 'malformed' | 'skipped' | 'dry-run';

export interface LineResult {
  readonly line: number;
  readonly outcome: LineOutcome;
  /** The reply's message, the reason a line was malformed, or in a dry run the request it would send. */
  readonly message: string;
  /** Why a line failed, in the core's vocabulary (not written to the results file). */
  readonly code?: FailureCode;
}

/** The core's outcome in the tool's words: whether a rerun can help is what operations staff need to know. */
export function lineOutcome(kind: OutcomeKind): LineOutcome {
  switch (kind) {
    case 'ok':
      return 'ok';
    case 'upstream-rejected':
      return 'rejected';
    case 'invalid-params':
    case 'not-authenticated':
      return 'invalid';
    case 'upstream-failed':
    case 'token-rejected':
    case 'token-unavailable':
    case 'session-unavailable':
      return 'failed';
  }
}

/** Lines that count as done: a rerun has nothing left to do for them. */
export const succeeded = (outcome: LineOutcome): boolean => outcome === 'ok' || outcome === 'skipped' || outcome === 'dry-run';
