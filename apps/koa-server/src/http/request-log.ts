import { randomUUID } from 'node:crypto';
import type { Log } from '@cotizaciones/runtime';
import { outcomeOf } from './request-outcome.js';
import type { RequestMiddleware } from './request-state.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * One log line per request, with its id (taken from `X-Request-Id` when it is
 * sane, else generated, and echoed back) and what became of it.
 */
export function requestLog(log: Log): RequestMiddleware {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const { cause, userId } = ctx.state;
      const line = {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        userId,
        outcome: outcomeOf(ctx),
        ...(cause ? { cause: { name: cause.name, message: cause.message } } : {}),
      };
      if (cause) log.warn(line, 'request');
      else log.info(line, 'request');
    }
  };
}
