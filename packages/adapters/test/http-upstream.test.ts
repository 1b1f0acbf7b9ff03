import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '@cotizaciones/core';
import type { ClosableUpstream } from '../src/index.js';
import { gotUpstream } from '../src/got.js';
import { undiciUpstream } from '../src/undici.js';
import { startStubUpstream, type StubUpstreamServer } from '../src/testing/index.js';

describe.each([
  ['got', gotUpstream],
  ['undici', undiciUpstream],
] as const)('%s upstream over HTTP', (_, create) => {
  let stub: StubUpstreamServer;
  let upstream: ClosableUpstream;
  beforeEach(async () => {
    stub = await startStubUpstream();
    upstream = create({ baseUrl: `${stub.url}/base/`, timeoutMs: 1000 });
  });
  afterEach(async () => {
    upstream.close();
    await stub.close();
  });

  it('POSTs JSON with the contract headers, below the base URL path', async () => {
    await upstream.post({
      path: '/api/cotizaciones/items/update',
      payload: { id: 0, delete: 1 },
      token: 'abc',
      idempotencyKey: 'run-1:2:ab12',
    });
    const [request] = stub.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/base/api/cotizaciones/items/update');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer abc');
    expect(request?.headers['idempotency-key']).toBe('run-1:2:ab12');
    expect(request?.body).toBe('{"id":0,"delete":1}');
  });

  it('does not follow redirects', async () => {
    stub.answer({ status: 302, text: '', contentType: 'text/html' });
    await expect(upstream.post({ path: '/x', payload: {}, token: 't', idempotencyKey: 'k' })).rejects.toBeInstanceOf(UpstreamError);
    expect(stub.received).toHaveLength(1);
  });

  it('decodes invalid UTF-8 in a JSON body as U+FFFD', async () => {
    stub.answer({ text: Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), contentType: 'application/json' });
    await expect(upstream.post({ path: '/x', payload: {}, token: 't', idempotencyKey: 'k' })).resolves.toEqual({
      status: 200,
      body: { m: '\uFFFD' },
    });
  });

  it('reuses keep-alive connections for sequential calls', async () => {
    for (let i = 0; i < 10; i += 1) await upstream.post({ path: '/x', payload: {}, token: 't', idempotencyKey: 'k' });
    const ports = new Set(stub.received.map((request) => request.remotePort));
    expect(stub.received).toHaveLength(10);
    // undici may open a second socket while the first is being released; never one per request.
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it('fails with unreachable (nothing was sent) when nothing listens or the name does not resolve', async () => {
    const closed = create({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 1000 });
    await expect(closed.post({ path: '/x', payload: {}, token: 't', idempotencyKey: 'k' })).rejects.toSatisfy(
      (error) =>
        error instanceof UpstreamError &&
        error.kind === 'unreachable' &&
        error.code === 'UPSTREAM_UNREACHABLE' &&
        error.message.startsWith('ECONNREFUSED'),
    );
    closed.close();
    // .invalid never resolves (RFC 6761).
    const unknown = create({ baseUrl: 'http://no-such-host.invalid', timeoutMs: 5000 });
    await expect(unknown.post({ path: '/x', payload: {}, token: 't', idempotencyKey: 'k' })).rejects.toSatisfy(
      (error) => error instanceof UpstreamError && error.kind === 'unreachable' && /^(ENOTFOUND|EAI_AGAIN)/.test(error.message),
    );
    unknown.close();
  });
});
