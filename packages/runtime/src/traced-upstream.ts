import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { UpstreamError } from '@cotizaciones/core';
import type { ClosableUpstream } from '@cotizaciones/adapters';

const tracer = trace.getTracer('cotizaciones');

/**
 * The upstream call as a client span (method, path template, status, or the failure's code). The
 * call runs inside it, so the client sends this span's context in `traceparent`.
 */
export function tracedUpstream(upstream: ClosableUpstream, baseUrl: string | undefined): ClosableUpstream {
  const server = baseUrl === undefined ? 'demo' : new URL(baseUrl).host;
  return {
    post(request) {
      const span = tracer.startSpan(`POST ${request.path}`, {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'url.template': request.path, 'server.address': server },
      });
      return context.with(trace.setSpan(context.active(), span), async () => {
        try {
          const reply = await upstream.post(request);
          span.setAttribute('http.response.status_code', reply.status);
          if (reply.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          return reply;
        } catch (error) {
          // The code only: a message may quote what the upstream said.
          const code = error instanceof UpstreamError ? error.code : 'UNEXPECTED';
          span.setAttribute('error.type', code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: code });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    close: () => upstream.close(),
  };
}
