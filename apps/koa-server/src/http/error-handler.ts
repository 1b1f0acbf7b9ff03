import { SessionUnavailableError } from '@cotizaciones/core';
import type { Log } from '@cotizaciones/runtime';
import { REJECTIONS, Rejection } from './rejection.js';
import { replyJson } from './reply-json.js';
import type { RequestContext } from './request-state.js';

/** The answer's message for an unexpected error (its cause goes to the server log only). */
export const INTERNAL_ERROR_MSG = 'Error interno.';

/**
 * The one place errors become answers: JSON in the contract's shape with its
 * headers (Koa's own handler would drop them and answer text). Unexpected
 * errors are a 500 with the cause in the server log, never in the answer.
 */
export function answerError(ctx: RequestContext, error: unknown, log: Log): void {
  const rejection = asRejection(error);
  if (rejection) {
    ctx.state.outcome = rejection.status === 503 ? 'unavailable' : 'rejected';
    replyJson(ctx, rejection.status, { ok: false, msg: rejection.msg });
    ctx.set(rejection.headers);
    return;
  }
  log.error({ err: error, requestId: ctx.state.requestId }, 'unexpected error');
  ctx.state.outcome = 'error';
  replyJson(ctx, 500, { ok: false, msg: INTERNAL_ERROR_MSG });
}

function asRejection(error: unknown): Rejection | undefined {
  if (error instanceof Rejection) return error;
  if (error instanceof SessionUnavailableError) return REJECTIONS.unavailable(error);
  // Errors from libraries that carry an HTTP status (Koa's ctx.throw, http-errors): a 4xx is the client's fault.
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (status === 413) return REJECTIONS.tooLarge(error);
  if (typeof status === 'number' && status >= 400 && status < 500) return REJECTIONS.malformed(error);
  return undefined;
}
