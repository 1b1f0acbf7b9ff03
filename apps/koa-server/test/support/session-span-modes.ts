import { INVALID_SPAN_CONTEXT, trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { afterAll } from 'vitest';

/**
 * The `cotizaciones.session.mode` of every session span the process starts from now on, through a
 * global tracer that records nothing else (no SDK, no collector). Call it at the top level of a test
 * file, before the app is created: the app takes its tracer then.
 */
export function sessionSpanModes(): () => string[] {
  const modes: string[] = [];
  const span = (): Span => trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  const tracer = {
    startSpan: span,
    startActiveSpan(name: string, ...rest: unknown[]) {
      const options = rest.length > 1 ? (rest[0] as SpanOptions) : {};
      const mode = options.attributes?.['cotizaciones.session.mode'];
      if (name.startsWith('session ') && typeof mode === 'string') modes.push(mode);
      return (rest.at(-1) as (span: Span) => unknown)(span());
    },
  } as Tracer;
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  afterAll(() => trace.disable());
  return () => [...new Set(modes)];
}
