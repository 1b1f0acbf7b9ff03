import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, bufferedActivityLog, deadLetterFile, type ActivityLogStore } from '../src/index.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

describe('the activity log traced (OpenTelemetry started)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('a batch with an entry the store refuses: the failed batch span, one span per entry as it is split, a dead-lettered event on the refused one only, each linked to its request', async () => {
    const refused = (entry: ActivityEntry) => entry.requestId === 'req-2';
    const store: ActivityLogStore = {
      write: (entries) =>
        entries.some(refused)
          ? Promise.reject(new ActivityStoreError('refused', '22001', 'value too long for type character varying(45)'))
          : Promise.resolve(),
      ping: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const file = join(temporaryDir('dead-letter-'), 'activity-dead-letter.jsonl');
    const log = bufferedActivityLog(store, { deadLetter: deadLetterFile(file), traced: true, lingerMs: 0 });
    const tracer = trace.getTracer('test');
    const requests = ['req-1', 'req-2', 'req-3'].map((requestId) =>
      tracer.startActiveSpan(`request ${requestId}`, (span) => {
        void log.record(sampleEntry({ requestId }));
        span.end();
        return span.spanContext();
      }),
    );
    await log.close(5_000);

    const writes = exporter.getFinishedSpans().filter((span) => span.name === 'activity_log write');
    const linkedTo = (span: (typeof writes)[number]) =>
      span.links.map((link) => requests.findIndex((request) => request.spanId === link.context.spanId) + 1);
    const whole = writes.find((span) => span.attributes['cotizaciones.activity.entries'] === 3);
    expect(whole).toBeDefined();
    expect(linkedTo(whole!)).toEqual([1, 2, 3]);
    expect(whole!.status.code).toBe(SpanStatusCode.ERROR);
    expect(whole!.events).toEqual([]);

    const dead = writes.filter((span) => span.events.some((event) => event.name === 'dead-lettered'));
    expect(dead).toHaveLength(1);
    expect(linkedTo(dead[0]!)).toEqual([2]);
    expect(dead[0]!.events[0]).toMatchObject({ name: 'dead-lettered', attributes: { 'error.type': '22001' } });
    // Every write its own trace, never a request's.
    for (const span of writes) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(requests.map((request) => request.traceId)).not.toContain(span.spanContext().traceId);
    }
    // The entries that were written count among the spans too, and the refused one is in the file.
    expect(
      writes
        .filter((span) => span.status.code !== SpanStatusCode.ERROR)
        .flatMap(linkedTo)
        .sort(),
    ).toEqual([1, 3]);
    expect(readFileSync(file, 'utf8')).toContain('"req-2"');
  });
});
