import type { Middleware } from 'koa';
import { SessionUnavailableError } from '@cotizaciones/core';
import type { ServerLog } from '../server-log.js';
import { REJECTIONS, Rejection } from './rejection.js';
import { replyJson } from './reply-json.js';

/**
 * The one place errors become answers: JSON in the contract's shape with its
 * headers (Koa's own handler would drop them and answer text). Unexpected
 * errors are a 500 with the cause in the server log, never in the answer.
 */
export function errorHandler(log: ServerLog): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const rejection = asRejection(error);
      if (rejection) {
        ctx.state.rejection = rejection;
        replyJson(ctx, rejection.status, { ok: false, msg: rejection.msg });
        return;
      }
      log.error({ err: error, requestId: ctx.state.requestId as unknown }, 'unexpected error');
      ctx.state.rejection = 'internal-error';
      replyJson(ctx, 500, { ok: false, msg: 'Error interno.' });
    }
  };
}

function asRejection(error: unknown): Rejection | undefined {
  if (error instanceof Rejection) return error;
  if (error instanceof SessionUnavailableError) return REJECTIONS.unavailable(error);
  // Body readers (raw-body, co-body, formidable) report client faults with an HTTP status.
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (status === 413) return REJECTIONS.tooLarge(error);
  if (typeof status === 'number' && status >= 400 && status < 500) return REJECTIONS.malformed(error);
  return undefined;
}
