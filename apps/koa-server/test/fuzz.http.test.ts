import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startApp } from './support/app.js';
import { FIELD_PATH, ITEM_PATH } from './support/service.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });
const contentType = fc.oneof(
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'APPLICATION/X-WWW-FORM-URLENCODED; charset=latin1',
    'multipart/form-data; boundary=b',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/mixed; boundary=b',
    'application/json',
    'text/plain',
    'application/octet-stream',
    '',
  ),
  printable,
);
const body = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('id=1&field=x&value=y', 'id[]=1', 'delete', '%', '=&=&', '--b\r\nContent-Disposition: form-data; name="id"\r\n\r\n5\r\n--b--\r\n', '--b\r\n\r\n', '{"id":1}').map((s) => Buffer.from(s)),
  printable.map((s) => Buffer.from(s)),
);
const request = fc.record({
  path: fc.constantFrom(FIELD_PATH, ITEM_PATH),
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  contentType,
  body,
  encoding: fc.constantFrom(undefined, 'gzip', 'deflate', 'br', 'identity', 'bogus'),
  origin: fc.option(fc.oneof(fc.constant('https://evil.example'), printable), { nil: undefined }),
  fetchSite: fc.option(fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'x'), { nil: undefined }),
  cookie: fc.option(fc.oneof(fc.constant('valid'), printable), { nil: undefined }),
});

const CONTRACT_HEADERS = {
  'content-type': 'application/json; charset=UTF-8',
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
};
const NO_UPSTREAM = ['No autenticado', 'Parámetros inválidos.', 'Origen no permitido.', 'Método no permitido.', 'Solicitud demasiado grande.', 'Solicitud inválida.'];

describe('HTTP fuzzing of both endpoints', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let cookie: string;
  beforeAll(async () => {
    app = await startApp({ bodyLimitBytes: 300 });
    cookie = await app.signIn();
  });
  afterAll(() => app.close());

  it('always answers the contract JSON with its headers, never a 5xx, never calls the upstream for a refusal', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.contentType) headers['content-type'] = r.contentType;
        if (r.encoding) headers['content-encoding'] = r.encoding;
        if (r.origin !== undefined) headers.origin = r.origin;
        if (r.fetchSite) headers['sec-fetch-site'] = r.fetchSite;
        if (r.cookie !== undefined) headers.cookie = r.cookie === 'valid' ? cookie : r.cookie;
        const calls = app.upstream.calls.length;
        const answer = await send(`${app.url}${r.path}`, r.method, headers, r.method === 'GET' ? Buffer.alloc(0) : r.body);

        expect(answer.status).toBeLessThan(500);
        for (const [name, value] of Object.entries(CONTRACT_HEADERS)) expect(answer.headers[name]).toBe(value);
        const reply = JSON.parse(answer.body) as { ok?: unknown; msg?: unknown };
        expect(typeof reply.ok).toBe('boolean');
        expect(Object.keys(reply)).toEqual(reply.ok ? ['ok'] : ['ok', 'msg']);
        if (reply.ok === false) expect(typeof reply.msg).toBe('string');
        const refused = answer.status !== 200 || NO_UPSTREAM.includes(String(reply.msg));
        expect(app.upstream.calls.length - calls).toBe(refused ? 0 : 1);
      }),
      { numRuns: 1000 },
    );
    const health = await fetch(`${app.url}/healthz`);
    expect(await health.text()).toBe('{"ok":true}');
    expect(app.logs.lines.filter((line) => line.msg === 'unexpected error')).toEqual([]);
  });
});
