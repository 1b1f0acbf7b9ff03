import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubTokenEndpoint } from '@cotizaciones/adapters/testing';
import { otlpReceiver } from './support/otlp-receiver.js';
import { FIELD_PATH, TOKEN, form, startService, type TestService } from './support/service.js';
import { until } from './support/until.js';

const SERVER = 2;
const CLIENT = 3;

describe('OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT set, http/json)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let svc: TestService;
  let cookie: string;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    // The test's requests come from 127.0.0.1, as a proxy's would: their traceparent is taken.
    svc = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      TRUST_PROXY: 'loopback',
    });
    cookie = await svc.signIn();
  });
  afterAll(async () => {
    await svc.close();
    receiver.close();
  });

  /** The spans of the trace a request's server span started, once its upstream call's span has come too. */
  const traceOf = async (requestId: string, withClient = true) => {
    const found = () => {
      const line = svc.logs.lines.find((entry) => entry.msg === 'request' && entry.requestId === requestId);
      const traceId = line?.trace_id as string | undefined;
      const spans = receiver.spans().filter((span) => span.traceId === traceId);
      const complete = traceId && spans.some((span) => span.kind === SERVER) && (!withClient || spans.some((span) => span.kind === CLIENT));
      return complete ? { line: line!, spans } : undefined;
    };
    expect(await until(() => found() !== undefined, 10_000), `the spans of request ${requestId}`).toBe(true);
    return found()!;
  };

  it('a signed-in update: a server span, the upstream call as its child, whose context the upstream receives', async () => {
    const answer = await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), { cookie });
    expect(await answer.text()).toBe('{"ok":true}');
    const { line, spans } = await traceOf(answer.headers.get('x-request-id')!);
    const server = spans.find((span) => span.kind === SERVER)!;
    const client = spans.find((span) => span.kind === CLIENT)!;
    expect(server).toMatchObject({
      name: `POST ${FIELD_PATH}`,
      parentSpanId: undefined,
      attributes: {
        'http.request.method': 'POST',
        'http.route': FIELD_PATH,
        'http.response.status_code': 200,
        'cotizaciones.outcome': 'ok',
      },
    });
    expect(client).toMatchObject({
      name: 'POST /api/cotizaciones/update',
      parentSpanId: server.spanId,
      attributes: { 'url.template': '/api/cotizaciones/update', 'http.response.status_code': 200 },
    });
    expect(spans.find((span) => span.name === 'session read')).toMatchObject({
      parentSpanId: server.spanId,
      attributes: { 'cotizaciones.session.mode': 'cookie', 'cotizaciones.session.outcome': 'signed-in' },
    });
    expect(svc.stub.received.at(-1)?.headers.traceparent).toBe(`00-${server.traceId}-${client.spanId}-01`);
    // The request's log line names its trace and span.
    expect(line).toMatchObject({ trace_id: server.traceId, span_id: server.spanId });
    // Its audit entry is written after the answer, in a batch of its own trace, linked to the request.
    const linked = () =>
      receiver.spans().find((span) => span.name === 'activity_log write' && span.links.some((link) => link.spanId === server.spanId));
    expect(await until(() => linked() !== undefined, 10_000)).toBe(true);
    expect(linked()).toMatchObject({
      parentSpanId: undefined,
      links: expect.arrayContaining([{ traceId: server.traceId, spanId: server.spanId }]) as unknown,
    });
    expect(linked()?.traceId).not.toBe(server.traceId);
  });

  it('continues the trace an incoming traceparent names (from a trusted proxy)', async () => {
    const answer = await svc.post(FIELD_PATH, form({ id: '13', field: 'estado', value: 'x' }), {
      cookie,
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    const { spans } = await traceOf(answer.headers.get('x-request-id')!);
    expect(spans.find((span) => span.kind === SERVER)).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
    });
    expect(svc.stub.received.at(-1)?.headers.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
  });

  it('"No autenticado": a server span with its outcome, the session read that found no one, no upstream call', async () => {
    const answer = await svc.post(FIELD_PATH, form({ id: '14', field: 'estado', value: 'x' }));
    expect(await answer.text()).toBe('{"ok":false,"msg":"No autenticado"}');
    const { spans } = await traceOf(answer.headers.get('x-request-id')!, false);
    const server = spans.find((span) => span.kind === SERVER);
    expect(server?.attributes['cotizaciones.outcome']).toBe('not-authenticated');
    expect(
      await until(() => receiver.spans().some((span) => span.name === 'session read' && span.parentSpanId === server?.spanId), 10_000),
    ).toBe(true);
    const read = receiver.spans().filter((span) => span.parentSpanId === server?.spanId);
    expect(read.map((span) => [span.name, span.attributes['cotizaciones.session.outcome']])).toEqual([['session read', 'signed-out']]);
  });

  it('an upstream failure: the client span has an error status and the failure code, nothing secret', async () => {
    svc.stub.answer({ status: 500, text: '<h1>down</h1>', contentType: 'text/html' });
    try {
      const answer = await svc.post(FIELD_PATH, form({ id: '15', field: 'estado', value: 'x' }), { cookie });
      const { spans } = await traceOf(answer.headers.get('x-request-id')!);
      expect(spans.find((span) => span.kind === CLIENT)).toMatchObject({
        status: { code: 2 },
        attributes: { 'error.type': 'UPSTREAM_INVALID_BODY' },
      });
      expect(spans.find((span) => span.kind === SERVER)?.attributes['cotizaciones.outcome']).toBe('upstream-failed');
    } finally {
      svc.stub.answer({ json: { ok: true } });
    }
  });

  it('exports nothing secret: no token, no cookie, no session key, no form value', () => {
    const exported = receiver.bodies.join('\n');
    expect(exported.length).toBeGreaterThan(0);
    for (const secret of [TOKEN, cookie.split('=')[1]!.split(';')[0]!, 'SECRET', 'estado']) expect(exported).not.toContain(secret);
  });
});

describe('OpenTelemetry traces with a token source that fetches (OAuth2)', () => {
  it('the token fetch is a span of the request, carrying the source and never the token or the client secret', async () => {
    const receiver = await otlpReceiver();
    const endpoint = await startStubTokenEndpoint();
    const svc = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      UPSTREAM_TOKEN: '',
      UPSTREAM_TOKEN_URL: endpoint.url,
      UPSTREAM_CLIENT_ID: 'svc',
      UPSTREAM_CLIENT_SECRET: 'client-SECRET-value',
    });
    try {
      const answer = await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), { cookie: await svc.signIn() });
      expect(await answer.text()).toBe('{"ok":true}');
      const traceId = svc.logs.lines.find(
        (line) => line.msg === 'request' && line.requestId === answer.headers.get('x-request-id'),
      )?.trace_id;
      const tokenSpan = () => receiver.spans().find((span) => span.traceId === traceId && span.name === 'token');
      expect(await until(() => tokenSpan() !== undefined, 10_000)).toBe(true);
      const token = tokenSpan();
      const server = receiver.spans().find((span) => span.traceId === traceId && span.kind === SERVER);
      expect(token).toMatchObject({ parentSpanId: server?.spanId, attributes: { 'cotizaciones.token.source': 'client-credentials' } });
      const exported = receiver.bodies.join('\n');
      for (const secret of ['token-1', 'client-SECRET-value']) expect(exported).not.toContain(secret);
    } finally {
      await svc.close();
      await endpoint.close();
      receiver.close();
    }
  });
});

describe('OpenTelemetry export: http/protobuf, and a collector that does not answer', () => {
  it('delivers http/protobuf to the traces endpoint', async () => {
    const received: Array<{ path: string | undefined; type: string | undefined; bytes: number }> = [];
    const receiver = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        received.push({ path: req.url, type: req.headers['content-type'], bytes });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const svc = await startService({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/custom/traces`,
    });
    try {
      expect(
        await (await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), { cookie: await svc.signIn() })).text(),
      ).toBe('{"ok":true}');
      expect(await until(() => received.length > 0, 10_000)).toBe(true);
      expect(received[0]).toMatchObject({ path: '/custom/traces', type: 'application/x-protobuf' });
      expect(received[0]!.bytes).toBeGreaterThan(100);
    } finally {
      await svc.close();
      receiver.close();
    }
  });

  it('a collector that accepts and never answers: every request answers, its complaints are one log line, the stop keeps its bound', async () => {
    let exports = 0;
    const stalled = createServer(() => void (exports += 1));
    stalled.listen(0, '127.0.0.1');
    await once(stalled, 'listening');
    const svc = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '200',
    });
    try {
      const cookie = await svc.signIn();
      // Requests go on while three exports, one after the other, hang until their time limit.
      for (let sent = 0; exports < 3; sent += 1) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            svc.post(FIELD_PATH, form({ id: String(i + 1), field: 'estado', value: 'x' }), { cookie }).then((r) => r.text()),
          ),
        );
        expect(answers.filter((text) => text !== '{"ok":true}')).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The failed exports are said once: the next minute's are counted into its next line.
      expect(svc.logs.lines.filter((line) => String(line.msg).startsWith('tracing:'))).toHaveLength(1);
    } finally {
      const started = performance.now();
      await svc.close();
      // close(1000): the spans still pending are given up at the bound, whatever the collector does.
      expect(performance.now() - started).toBeLessThan(5_000);
      stalled.closeAllConnections();
      stalled.close();
    }
  }, 30_000);
});
