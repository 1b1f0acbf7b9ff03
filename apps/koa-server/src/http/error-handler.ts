import type { Log } from '@cotizaciones/runtime';
import { replyRefusal } from './answers.js';
import { REJECTIONS, Rejection } from './rejection.js';
import type { RequestContext } from './request-state.js';

/**
 * What a route threw, answered in the contract's shape with its headers (Koa's own handler would
 * drop them and answer text): a refusal of the request (`rejected`), or the unexpected, a 500 with
 * the cause in the server log, never in the answer. A use case's outcomes never come here: the
 * endpoint answers each.
 */
export function answerError(ctx: RequestContext, error: unknown, log: Log): void {
  const rejection = asRejection(error);
  if (rejection) {
    ctx.state.outcome = 'rejected';
    replyRefusal(ctx, rejection.status, rejection.headers);
    return;
  }
  log.error({ err: error, requestId: ctx.state.requestId }, 'unexpected error');
  ctx.state.outcome = 'error';
  replyRefusal(ctx, 500);
}

function asRejection(error: unknown): Rejection | undefined {
  if (error instanceof Rejection) return error;
  // Errors from libraries that carry an HTTP status (Koa's ctx.throw, http-errors): a 4xx is the client's fault.
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (status === 413) return REJECTIONS.tooLarge(error);
  if (typeof status === 'number' && status >= 400 && status < 500) return REJECTIONS.malformed(error);
  return undefined;
}
