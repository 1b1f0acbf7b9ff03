import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code?: number } | undefined;
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>;
}

/** An OTLP/HTTP receiver for `http/json`: what the service exported, as bodies and as spans. */
export async function otlpReceiver() {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const spans = (): ExportedSpan[] =>
    bodies.flatMap((body) =>
      (
        JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> }
      ).resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            traceId: span.traceId as string,
            spanId: span.spanId as string,
            parentSpanId: (span.parentSpanId as string | undefined) || undefined,
            name: span.name as string,
            kind: span.kind as number,
            status: span.status as { code?: number } | undefined,
            links: ((span.links as Array<{ traceId: string; spanId: string }> | undefined) ?? []).map(({ traceId, spanId }) => ({
              traceId,
              spanId,
            })),
            attributes: Object.fromEntries(
              (span.attributes as Array<{ key: string; value: Record<string, unknown> }>).map(({ key, value }) => [
                key,
                Object.values(value)[0],
              ]),
            ),
          })),
        ),
      ),
    );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, spans, close: () => server.close() };
}
