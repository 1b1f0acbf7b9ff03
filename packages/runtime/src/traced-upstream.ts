import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ClosableUpstream } from '@cotizaciones/adapters';
import { spanSettled } from './span-settled.js';

/**
 * The upstream call as a client span (method, path template, status, or the failure's code). The
 * call runs inside it, so the client sends this span's context in `traceparent`.
 */
export function tracedUpstream(upstream: ClosableUpstream, baseUrl: string | undefined): ClosableUpstream {
  const tracer = trace.getTracer('cotizaciones');
  const server = baseUrl === undefined ? 'demo' : new URL(baseUrl).host;
  return {
    post(request) {
      const span = tracer.startSpan(`POST ${request.path}`, {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'url.template': request.path, 'server.address': server },
      });
      const answered = context
        .with(trace.setSpan(context.active(), span), () => upstream.post(request))
        .then((reply) => {
          span.setAttribute('http.response.status_code', reply.status);
          if (reply.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          return reply;
        });
      return spanSettled(span, answered);
    },
    close: () => upstream.close(),
  };
}
