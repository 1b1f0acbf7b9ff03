import { ROOT_CONTEXT, SpanStatusCode, trace, type Link, type SpanContext } from '@opentelemetry/api';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, isRefusal } from './activity-store-error.js';

/** The activity log's writes as spans, for when tracing is on. */
export interface BatchSpans {
  /** Notes the request an entry is recorded in (the active span). */
  recorded(entry: ActivityEntry): void;
  /**
   * A store write as a span of its own trace, linked to the requests its entries came from (they
   * were answered before it: it is no part of them). An entry the store refuses alone gets a
   * `dead-lettered` event: it goes to the dead-letter file.
   */
  write(batch: readonly ActivityEntry[], run: () => Promise<void>): Promise<void>;
}

export function batchSpans(): BatchSpans {
  const tracer = trace.getTracer('cotizaciones');
  const origins = new WeakMap<ActivityEntry, SpanContext>();
  return {
    recorded(entry) {
      const span = trace.getActiveSpan();
      if (span?.isRecording()) origins.set(entry, span.spanContext());
    },
    write(batch, run) {
      const links: Link[] = [];
      for (const entry of batch) {
        const origin = origins.get(entry);
        if (origin) links.push({ context: origin });
      }
      // From the root: the writer runs in whichever request's context first woke it.
      return tracer.startActiveSpan(
        'activity_log write',
        { attributes: { 'cotizaciones.activity.entries': batch.length }, links },
        ROOT_CONTEXT,
        async (span) => {
          try {
            await run();
          } catch (error) {
            const code = error instanceof ActivityStoreError ? error.code : 'UNEXPECTED';
            span.setAttribute('error.type', code);
            span.setStatus({ code: SpanStatusCode.ERROR, message: code });
            if (batch.length === 1 && isRefusal(error)) span.addEvent('dead-lettered', { 'error.type': code });
            throw error;
          } finally {
            span.end();
          }
        },
      );
    },
  };
}
