import { unredactedLog, type Log } from '@cotizaciones/runtime';
import type { Metrics } from '../metrics.js';
import { markAnswer } from './answers.js';
import { closeUnreadBody } from './close-unread-body.js';
import { answerError } from './error-handler.js';
import { observeRequests } from './observe-requests.js';
import { assignRequestId, logRequest } from './request-log.js';
import type { RequestMiddleware } from './request-state.js';
import { serverSpan } from './server-span.js';
import { admitProxyHeaders, type Trust } from './trusted-proxies.js';

/**
 * What every request goes through, as one middleware: one frame of Koa's chain where five
 * middlewares cost five (each an async frame, a dispatch closure and promises per request).
 * In order: every answer is `nosniff` and carries the request id; errors become the contract's
 * answers; an answer given before the body was read closes the connection; then the endpoint
 * metrics and the request's log line, which see the final status and outcome. Before all of it, with
 * proxies trusted, whether this request came through one (`trust`: TRUST_PROXY compiled).
 */
export function requestFrame(
  log: Log,
  metrics: Metrics,
  endpointPaths: ReadonlyMap<string, string>,
  traced: boolean,
  trust?: Trust,
): RequestMiddleware {
  const observe = observeRequests(metrics, endpointPaths);
  // The request line's fields are logRequest's own, none a secret's path: no redactor pass per field.
  const lines = unredactedLog(log);
  const frame: RequestMiddleware = async (ctx, next) => {
    const started = performance.now();
    markAnswer(ctx, assignRequestId(ctx));
    try {
      await next();
    } catch (error) {
      answerError(ctx, error, log);
    } finally {
      closeUnreadBody(ctx);
      const durationMs = performance.now() - started;
      observe(ctx, durationMs);
      logRequest(lines, ctx, durationMs);
    }
  };
  // Off, not a single call more per request.
  const framed = traced ? serverSpan(frame, endpointPaths) : frame;
  if (!trust) return framed;
  const admit = admitProxyHeaders(trust);
  return (ctx, next) => {
    admit(ctx);
    // Both are async functions (Koa's Middleware type says `any`).
    return framed(ctx, next) as Promise<void>;
  };
}
