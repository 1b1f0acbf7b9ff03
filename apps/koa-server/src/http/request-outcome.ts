import type { OutcomeKind } from '@cotizaciones/core';

/**
 * What became of a request, in one vocabulary: the use case's own outcome (a session store that
 * could not be reached is its `session-unavailable`), or `rejected` (refused at the protocol level),
 * `unavailable` (a 503 of a route that names no outcome: `/readyz`) or `error` (an unexpected
 * failure: 500). The request log writes it as it is.
 */
export type RequestOutcome = OutcomeKind | 'rejected' | 'unavailable' | 'error';

/**
 * The `outcome` label of http_requests_total for each: where HTTP renames an outcome (decision 034;
 * the log and the span keep it as it is), coarser, and spelled as dashboards already know it.
 */
export const METRIC_OUTCOME: Readonly<Record<RequestOutcome, string>> = {
  ok: 'ok',
  'not-authenticated': 'not_authenticated',
  'invalid-params': 'rejected',
  'upstream-rejected': 'upstream_error',
  'upstream-failed': 'upstream_error',
  'token-rejected': 'upstream_error',
  'token-unavailable': 'upstream_error',
  'session-unavailable': 'unavailable',
  rejected: 'rejected',
  unavailable: 'unavailable',
  error: 'error',
};
