import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { otlpReceiver, type ExportedSpan } from './support/otlp-receiver.js';
import { FIELD_PATH, form, rawPost, startService, type TestService } from './support/service.js';
import { until } from './support/until.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SERVER = 2;
const FORGED_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const FORGED_SPAN = '00f067aa0ba902b7';

/** A change POSTed from the loopback address `from` (the peer the service sees); its answer and its audit row. */
async function changeFrom(svc: TestService, cookie: string, from: string, headers: Record<string, string>) {
  const before = (await svc.rows()).length;
  const answer = await rawPost(
    `${svc.url}${FIELD_PATH}`,
    form({ id: '12', field: 'estado', value: 'x' }).toString(),
    { cookie, ...headers },
    from,
  );
  const text = await answer.text();
  const rows = (await svc.rows()).slice(before);
  return { answer, text, requestId: answer.headers.get('x-request-id')!, row: rows.length === 1 ? rows[0] : undefined };
}

// CONTRACT "Activity log": X-Forwarded-*, X-Request-Id (hence the Idempotency-Key) and traceparent/tracestate
// are taken only from a peer listed in TRUST_PROXY; from any other peer they are ignored.
describe('TRUST_PROXY=127.0.0.2: headers only from that peer', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let svc: TestService;
  let cookie: string;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    svc = await startService({
      TRUST_PROXY: '127.0.0.2',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    cookie = await svc.signIn();
  });
  afterAll(async () => {
    await svc.close();
    receiver.close();
  });

  /** The server span of the request whose log line has this id, once exported. */
  const serverSpanOf = async (requestId: string): Promise<ExportedSpan> => {
    const span = () => {
      const traceId = svc.logs.lines.find((line) => line.msg === 'request' && line.requestId === requestId)?.trace_id;
      return receiver.spans().find((one) => one.traceId === traceId && one.kind === SERVER);
    };
    expect(await until(() => span() !== undefined, 10_000), `the server span of request ${requestId}`).toBe(true);
    return span()!;
  };
  const forged = {
    'x-forwarded-for': '6.6.6.6',
    'x-request-id': 'forged-request-id',
    // Not sampled: a client that could choose would turn the service's tracing off.
    traceparent: `00-${FORGED_TRACE}-${FORGED_SPAN}-00`,
    tracestate: 'vendor=forged',
  };

  it("from another peer (127.0.0.3): the socket address, the service's own request id and key, a new trace linked to the forged one, no tracestate upstream", async () => {
    const received = svc.stub.received.length;
    const first = await changeFrom(svc, cookie, '127.0.0.3', forged);
    const second = await changeFrom(svc, cookie, '127.0.0.3', forged);
    for (const { text, requestId, row } of [first, second]) {
      expect(text).toBe('{"ok":true}');
      expect(requestId).toMatch(UUID);
      expect(row).toMatchObject({ client_ip: '127.0.0.3', request_id: requestId });
    }
    const upstream = svc.stub.received.slice(received);
    // One key per change, each the service's own: the same forged id cannot make two changes one.
    expect(upstream.map((request) => request.headers['idempotency-key'])).toEqual([first.requestId, second.requestId]);
    expect(first.requestId).not.toBe(second.requestId);

    const server = await serverSpanOf(first.requestId);
    expect(server.traceId).not.toBe(FORGED_TRACE);
    expect(server.parentSpanId).toBeUndefined();
    expect(server.links).toEqual([{ traceId: FORGED_TRACE, spanId: FORGED_SPAN }]);
    expect(upstream[0]!.headers.traceparent).toMatch(new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`));
    expect(upstream.map((request) => request.headers.tracestate)).toEqual([undefined, undefined]);
  });

  it('from the listed peer (127.0.0.2): its X-Forwarded-For, its request id as the key, its trace continued with its tracestate', async () => {
    const received = svc.stub.received.length;
    const { text, requestId, row } = await changeFrom(svc, cookie, '127.0.0.2', {
      ...forged,
      traceparent: `00-${FORGED_TRACE}-${FORGED_SPAN}-01`,
    });
    expect(text).toBe('{"ok":true}');
    expect(requestId).toBe('forged-request-id');
    expect(row).toMatchObject({ client_ip: '6.6.6.6', request_id: 'forged-request-id' });
    const [upstream] = svc.stub.received.slice(received);
    expect(upstream?.headers['idempotency-key']).toBe('forged-request-id');
    expect(upstream?.headers.tracestate).toBe('vendor=forged');
    expect(await serverSpanOf(requestId)).toMatchObject({ traceId: FORGED_TRACE, parentSpanId: FORGED_SPAN, links: [] });
  });

  // CONTRACT "Activity log": a request id from a header is validated before it is recorded (or sent as the key).
  it.each([
    ['a space', 'has space'],
    ['129 characters', 'r'.repeat(129)],
    ['an SQL fragment', "1'); DROP TABLE activity_log; --"],
  ])("from the listed peer, an X-Request-Id off the pattern (%s): the service's own id, recorded and sent as the key", async (_, sent) => {
    const received = svc.stub.received.length;
    const { text, requestId, row } = await changeFrom(svc, cookie, '127.0.0.2', { 'x-request-id': sent });
    expect(text).toBe('{"ok":true}');
    expect(requestId).toMatch(UUID);
    expect(row).toMatchObject({ request_id: requestId });
    expect(svc.stub.received.slice(received).map((request) => request.headers['idempotency-key'])).toEqual([requestId]);
  });

  it("X-Forwarded-Proto and X-Forwarded-Host make the service's own origin only from the listed peer", async () => {
    const headers = { origin: 'https://app.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.com' };
    expect((await changeFrom(svc, cookie, '127.0.0.3', headers)).text).toBe('{"ok":false,"msg":"Origen no permitido."}');
    expect((await changeFrom(svc, cookie, '127.0.0.2', headers)).text).toBe('{"ok":true}');
  });
});

describe('TRUST_PROXY forms', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  async function service(trustProxy: string) {
    const svc = await startService({ TRUST_PROXY: trustProxy });
    cleanup.push(() => svc.close());
    return { svc, cookie: await svc.signIn() };
  }
  // Two proxies' hops, then the client nginx would have recorded.
  const chain = { 'x-forwarded-for': '6.6.6.6, 127.0.0.9, 127.0.0.6' };

  it('a CIDR range (127.0.0.4/30): X-Forwarded-For walked from the right while the hop is in it; a peer outside it is the client', async () => {
    const { svc, cookie } = await service('127.0.0.4/30');
    expect((await changeFrom(svc, cookie, '127.0.0.5', chain)).row?.client_ip).toBe('127.0.0.9');
    expect((await changeFrom(svc, cookie, '127.0.0.3', chain)).row?.client_ip).toBe('127.0.0.3');
  });

  it('a netmask and a list (10.0.0.0/255.0.0.0,127.0.0.4/255.255.255.252)', async () => {
    const { svc, cookie } = await service('10.0.0.0/255.0.0.0,127.0.0.4/255.255.255.252');
    expect((await changeFrom(svc, cookie, '127.0.0.7', { 'x-forwarded-for': '6.6.6.6, 10.1.2.3' })).row?.client_ip).toBe('6.6.6.6');
    expect((await changeFrom(svc, cookie, '127.0.0.8', { 'x-forwarded-for': '6.6.6.6, 10.1.2.3' })).row?.client_ip).toBe('127.0.0.8');
  });

  it('loopback: every loopback hop is a proxy', async () => {
    const { svc, cookie } = await service('loopback');
    expect((await changeFrom(svc, cookie, '127.0.0.3', chain)).row?.client_ip).toBe('6.6.6.6');
  });

  it('uniquelocal does not cover loopback peers', async () => {
    const { svc, cookie } = await service('uniquelocal');
    const { requestId, row } = await changeFrom(svc, cookie, '127.0.0.3', { ...chain, 'x-request-id': 'forged-request-id' });
    expect(row?.client_ip).toBe('127.0.0.3');
    expect(requestId).toMatch(UUID);
  });

  it('unset: no peer is trusted', async () => {
    const svc = await startService();
    cleanup.push(() => svc.close());
    const { requestId, row } = await changeFrom(svc, await svc.signIn(), '127.0.0.1', { ...chain, 'x-request-id': 'forged-request-id' });
    expect(row?.client_ip).toBe('127.0.0.1');
    expect(requestId).toMatch(UUID);
  });
});
