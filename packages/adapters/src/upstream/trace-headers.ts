import { context, propagation } from '@opentelemetry/api';

/**
 * The active trace context as W3C headers (`traceparent`, `tracestate`) for an upstream call, so
 * the upstream's traces join the caller's. Empty while tracing is off (no propagator is registered).
 */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}
