import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { ChangeLine } from './change-line.js';
import { succeeded, type LineResult } from './line-result.js';

export interface TracedLines {
  readonly run: (line: ChangeLine) => Promise<LineResult>;
  /** Ends the run's span. */
  end(): void;
}

/**
 * One trace per line, each linked to a span for the run: a file of a million lines makes a million
 * small traces a collector can take, not one it cannot. Every line's span carries the run id, the
 * line number, the operation and the outcome; its upstream call and audit write hang off it.
 */
export function tracedLines(run: (line: ChangeLine) => Promise<LineResult>, runId: string): TracedLines {
  const tracer = trace.getTracer('cotizaciones');
  const runSpan: Span = tracer.startSpan('cotizaciones apply', { root: true, attributes: { 'cotizaciones.run_id': runId } });
  const links = [{ context: runSpan.spanContext() }];
  return {
    run: (line) =>
      tracer.startActiveSpan(
        `line ${line.operation}`,
        {
          root: true,
          links,
          attributes: { 'cotizaciones.run_id': runId, 'cotizaciones.line': line.line, 'cotizaciones.operation': line.operation },
        },
        async (span) => {
          try {
            const result = await run(line);
            span.setAttribute('cotizaciones.line.outcome', result.outcome);
            if (!succeeded(result.outcome)) span.setStatus({ code: SpanStatusCode.ERROR, message: result.code ?? result.outcome });
            return result;
          } finally {
            span.end();
          }
        },
      ),
    end: () => runSpan.end(),
  };
}
