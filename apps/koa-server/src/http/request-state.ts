import type { Middleware, ParameterizedContext } from 'koa';
import type { Session, WaitTally } from '@cotizaciones/core';
import type { RequestOutcome } from './request-outcome.js';

/**
 * What the middleware of one request tell each other: the one shape of `ctx.state`. As the use
 * case's {@link WaitTally}, `waitedMs` holds the time it waited on the token source and the upstream.
 */
export interface RequestState extends WaitTally {
  /** The peer is a trusted proxy (TRUST_PROXY): its X-Forwarded-*, X-Request-Id and trace context are taken. */
  trustedPeer?: boolean;
  /** Set by the request log: a trusted proxy's sane X-Request-Id, else generated; also the upstream's `Idempotency-Key`. */
  requestId?: string;
  /** The signed-in user's id, once the session was asked for it. */
  userId?: string | undefined;
  /** What became of the request; unset for routes other than the endpoints' that did not fail. */
  outcome?: RequestOutcome;
  /** Why a use case failed, for the request log. */
  cause?: Error | undefined;
  /** The request's session, opened on first use (a field, not a WeakMap keyed by the context: cheaper to collect). */
  session?: Session;
  /** What the session binding noted of this request's session for its commit; the binding's own. */
  sessionWork?: object;
}

export type RequestContext = ParameterizedContext<RequestState>;
export type RequestMiddleware = Middleware<RequestState>;

/** The request's outcome; for a route that sets none, what its status says of a failure. */
export function outcomeOf(ctx: RequestContext): RequestOutcome | undefined {
  if (ctx.state.outcome) return ctx.state.outcome;
  if (ctx.status === 503) return 'unavailable';
  return ctx.status >= 500 ? 'error' : undefined;
}
