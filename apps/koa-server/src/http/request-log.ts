import { randomUUID } from 'node:crypto';
import { isRequestId } from '@cotizaciones/core';
import { errorSummary, type Log } from '@cotizaciones/runtime';
import { outcomeOf } from './request-state.js';
import type { RequestContext } from './request-state.js';

/**
 * The request's id (echoed back by the answer's headers): the `X-Request-Id` a trusted proxy sent (TRUST_PROXY; nginx's
 * `$request_id`, the same on its retry to another instance) when it is sane, else one the service
 * makes. It is also the change's `Idempotency-Key`, so a client never chooses it: an id from any other
 * peer is ignored.
 */
export function assignRequestId(ctx: RequestContext): string {
  const incoming = ctx.state.trustedPeer === true ? ctx.get('X-Request-Id') : '';
  const requestId = isRequestId(incoming) ? incoming : randomUUID();
  ctx.state.requestId = requestId;
  return requestId;
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
