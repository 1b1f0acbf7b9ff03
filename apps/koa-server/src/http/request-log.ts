import { randomUUID } from 'node:crypto';
import { errorSummary, type Log } from '@cotizaciones/runtime';
import { outcomeOf } from './request-state.js';
import type { RequestContext } from './request-state.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The request's id: `X-Request-Id` when it is sane, else generated; echoed back. It is also the
 * change's `Idempotency-Key` when a trusted proxy set it (nginx's `$request_id`, the same on its
 * retry to another instance) or when the service made it; one a client sent straight to the
 * service is only logged, and the key is the service's own: a client never chooses it.
 */
export function assignRequestId(ctx: RequestContext): void {
  const incoming = ctx.get('X-Request-Id');
  const sane = REQUEST_ID.test(incoming);
  const requestId = sane ? incoming : randomUUID();
  ctx.state.requestId = requestId;
  ctx.state.idempotencyKey = sane && !ctx.app.proxy ? randomUUID() : requestId;
  ctx.set('X-Request-Id', requestId);
}

/** The one log line per request: its id, what became of it, and how long it took. */
export function logRequest(log: Log, ctx: RequestContext, durationMs: number): void {
  const { cause, requestId, userId } = ctx.state;
  const line = {
    requestId,
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    durationMs: Math.round(durationMs * 100) / 100,
    userId,
    outcome: outcomeOf(ctx),
    // The failure's code as the core names it (UPSTREAM_TIMEOUT, TOKEN_REJECTED…), with its name and message.
    ...(cause ? { cause: errorSummary(cause) } : {}),
  };
  if (cause) log.warn(line, 'request');
  else log.info(line, 'request');
}
