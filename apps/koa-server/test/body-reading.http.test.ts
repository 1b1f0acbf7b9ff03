import { request } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { startApp } from './support/app.js';
import { FIELD_PATH, rawPost } from './support/service.js';
import { streamPost } from './support/streaming-client.js';
import { until } from './support/until.js';

const LIMIT = 64 * 1024;
const TOO_LARGE = '{"ok":false,"msg":"Solicitud demasiado grande."}';
const gzipForm = (body: Buffer) => ({
  'content-type': 'application/x-www-form-urlencoded',
  'content-encoding': 'gzip',
  'content-length': String(body.length),
});

/** A gzip-encoded form POST sent chunked (no Content-Length to refuse it by): status and body of the answer. */
function postChunkedGzip(url: string, body: Buffer, cookie: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 4096) req.write(body.subarray(i, i + 4096));
    req.end();
  });
}

describe('reading request bodies', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let cookie: string;
  beforeAll(async () => {
    app = await startApp({ bodyLimitBytes: LIMIT });
    cookie = await app.signIn();
  });
  afterAll(() => app.close());

  it('refuses a gzip bomb at the limit of decoded bytes, and closes the connection', async () => {
    // 32 MiB of decoded form in less than the limit on the wire.
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024, 'a'));
    expect(bomb.length).toBeLessThan(LIMIT);
    const response = await rawPost(`${app.url}${FIELD_PATH}`, bomb, { cookie, ...gzipForm(bomb) });
    await expectAnswer(response, 413, TOO_LARGE);
    expect(response.headers.get('connection')).toBe('close');
  });

  it('refuses a compressed body that decodes to nothing but goes on and on (empty gzip members)', async () => {
    const members = Buffer.concat(Array.from({ length: 5_000 }, () => gzipSync(Buffer.alloc(0))));
    expect(members.length).toBeGreaterThan(LIMIT);
    expect(await postChunkedGzip(`${app.url}${FIELD_PATH}`, members, cookie)).toEqual({ status: 413, text: TOO_LARGE });
    expect(app.upstream.calls).toHaveLength(0);
  });

  it('logs a client that hangs up in the middle of its body as one request line at info level, no error, no stack', async () => {
    const before = app.logs.lines.length;
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // The bytes reach the server before the FIN that follows them: the request is cut inside its body.
    const head = `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`;
    await new Promise((resolve) => socket.write(`${head}id=1&field=`, resolve));
    socket.destroy();
    expect(await until(() => app.logs.lines.slice(before).some((line) => line.msg === 'request'), 10_000)).toBe(true);
    const lines = app.logs.lines.slice(before);
    expect(lines.filter((line) => line.msg === 'request')).toEqual([
      expect.objectContaining({ level: 30, status: 400, outcome: 'rejected' }),
    ]);
    // Besides it, at most the parser's note of the cut at debug level.
    expect(lines.filter((line) => (line.level as number) > 20)).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toMatch(/stack|at [\w.]+ \(/);
    expect(app.upstream.calls).toHaveLength(0);
  });

  it('keeps the connection alive after a body it read to the end', async () => {
    const response = await rawPost(`${app.url}${FIELD_PATH}`, 'id=1', { cookie });
    await expectAnswer(response, 200, '{"ok":true}');
    expect(response.headers.get('connection')).toBe('keep-alive');
  });

  it('answers 413 past MAX_PARAMS as soon as it counts them, and closes the connection', async () => {
    const response = await rawPost(`${app.url}${FIELD_PATH}`, 'a&'.repeat(2_000), { cookie });
    await expectAnswer(response, 413, TOO_LARGE);
    expect(response.headers.get('connection')).toBe('close');
  });

  it.each<[string, string, number, string]>([
    ['an anonymous request', FIELD_PATH, 200, '{"ok":false,"msg":"No autenticado"}'],
    ['a request to no route', '/nowhere', 404, '{"ok":false,"msg":"No encontrado."}'],
  ])('does not drain the body of %s on a keep-alive connection: it answers, then ends the connection', async (_, path, status, body) => {
    const result = await streamPost(app.url, {
      path,
      contentType: 'application/x-www-form-urlencoded',
      head: 'id=1&value=',
      filler: 0x61,
      totalBytes: 512 * 1024 * 1024,
      framing: 'chunked',
      deadlineMs: 15_000,
    });
    expect(result.response).toBeDefined();
    await expectAnswer(result.response!, status, body);
    expect(result.response!.headers.get('connection')).toBe('close');
    expect(result.connectionEnded).toBe(true);
    expect(result.sentBytes).toBeLessThan(128 * 1024 * 1024);
  });
});
