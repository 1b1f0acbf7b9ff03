import type { Outcome } from '@cotizaciones/core';
import { replyOutcome } from './answers.js';
import type { RequestContext } from './request-state.js';

/**
 * The one path from a use case's outcome to the answer, for every route that has one (the endpoints,
 * the dev routes' session outage): kept for the request log, the metrics and the span, then answered.
 */
export function answerOutcome(ctx: RequestContext, outcome: Outcome): void {
  ctx.state.outcome = outcome.kind;
  ctx.state.cause = outcome.cause;
  replyOutcome(ctx, outcome);
}
