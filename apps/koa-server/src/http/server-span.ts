import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { outcomeOf, type RequestMiddleware } from './request-state.js';

/**
 * The request as a server span, continuing the trace an incoming `traceparent` names when a trusted
 * proxy sent it (nginx passes it through). From any other peer it starts a new trace, sampled as the
 * service decides and linked to the client's context, whose `tracestate` goes no further. Its name is
 * the route, never the raw path of an unknown one; its attributes the method, the status and the
 * outcome in the core's words. Everything the request does runs inside it: its log lines, its session
 * read, its upstream call.
 */
export function serverSpan(frame: RequestMiddleware, endpointPaths: ReadonlyMap<string, string>): RequestMiddleware {
  const tracer = trace.getTracer('cotizaciones');
  return (ctx, next) => {
    const incoming = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const trusted = ctx.state.trustedPeer === true;
    const parent = trusted ? incoming : ROOT_CONTEXT;
    const client = trusted ? undefined : trace.getSpanContext(incoming);
    const route = endpointPaths.has(ctx.path) ? ctx.path : KNOWN.has(ctx.path) ? ctx.path : 'unmatched';
    const attributes = { 'http.request.method': ctx.method, 'http.route': route };
    const span = tracer.startSpan(
      `${ctx.method} ${route}`,
      { kind: SpanKind.SERVER, attributes, ...(client ? { links: [{ context: client }] } : {}) },
      parent,
    );
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        await frame(ctx, next);
      } finally {
        span.setAttribute('http.response.status_code', ctx.status);
        const outcome = outcomeOf(ctx);
        if (outcome !== undefined) span.setAttribute('cotizaciones.outcome', outcome);
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    });
  };
}

/** The service's own routes besides the endpoints: named as they are. */
const KNOWN = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json']);
