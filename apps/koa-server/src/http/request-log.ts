import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Outcome } from '@cotizaciones/core';
import type { ServerLog } from '../server-log.js';
import { outcomeLabel } from './outcome-label.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * One log line per request, with its id (taken from `X-Request-Id` when it is
 * sane, else generated, and echoed back) and what the use case did.
 */
export function requestLog(log: ServerLog): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const outcome = ctx.state.outcome as Outcome | undefined;
      const line = {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        userId: ctx.state.userId as string | undefined,
        outcome: outcome?.kind ?? outcomeLabel(ctx),
        ...(outcome?.cause ? { cause: { name: outcome.cause.name, message: outcome.cause.message } } : {}),
      };
      if (outcome?.cause) log.warn(line, 'request');
      else log.info(line, 'request');
    }
  };
}
