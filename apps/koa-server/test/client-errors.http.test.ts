import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from './support/app.js';
import { rawExchange, type RawAnswer } from './support/raw-socket.js';
import { FIELD_PATH } from './support/service.js';

const COOKIE_VALUE = 'koa.sess=COOKIE-SECRET-abcdef123456';
const BEARER = 'Bearer AUTH-SECRET-987654321';

/** Requests Node's HTTP parser refuses, each carrying a Cookie and an Authorization header. */
function rejected(padding = ''): Record<string, string> {
  const head = (extra: string) =>
    `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nCookie: ${COOKIE_VALUE}\r\nAuthorization: ${BEARER}\r\nX-Padding: ${padding}\r\n${extra}`;
  return {
    'bad chunk size': head('Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nid=1\r\n0\r\n\r\n'),
    'Transfer-Encoding: xchunked': head('Transfer-Encoding: xchunked\r\n\r\n'),
    'bad header name': head('Bad Header: x\r\n\r\n'),
    'Content-Length twice': head('Content-Length: 1\r\nContent-Length: 2\r\n\r\nab'),
  };
}

/** A Buffer in a JSON log line is a list of byte values: read them as text so a secret inside shows. */
function withBuffersAsText(line: string): string {
  return line.replace(/"data":\[([\d,]*)\]/g, (_, bytes: string) =>
    JSON.stringify(Buffer.from(bytes.split(',').map(Number)).toString('latin1')),
  );
}

describe('requests the HTTP parser refuses', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  it.each(Object.keys(rejected()))('%s: no log line holds the cookie or the authorization, and lines stay short', async (name) => {
    const before = app.logs.lines.length;
    await rawExchange(app.url, [rejected()[name]!]);
    await rawExchange(app.url, [rejected('p'.repeat(60_000))[name]!]);
    const lines = app.logs.lines.slice(before).map((line) => withBuffersAsText(JSON.stringify(line)));
    for (const line of lines) {
      expect(line).not.toContain('COOKIE-SECRET');
      expect(line).not.toContain('AUTH-SECRET');
      expect(line).not.toContain('ppppppppppppppp');
      expect(line.length).toBeLessThan(1_000);
    }
    // Logged, as the client's fault: at debug level, not as a server error.
    for (const line of app.logs.lines.slice(before)) expect(line.level).toBeLessThan(40);
  });
});

const CONTRACT = {
  'content-type': 'application/json; charset=UTF-8',
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  connection: 'close',
};

/** The HTTP layer's own refusals: the contract's JSON with its headers, then the connection closes. */
function expectProtocolAnswer(answer: RawAnswer, status: number, msg: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers).toMatchObject(CONTRACT);
  expect(answer.body).toBe(JSON.stringify({ ok: false, msg }));
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(answer.closed).toBe(true);
}

describe("the HTTP layer's own answers", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp({}, {}, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
  });
  afterAll(() => app.close());

  it.each([
    ['a broken request line', 'GARBAGE\r\n\r\n'],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
    ['a bad chunk size', `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n`],
    ['Transfer-Encoding: xchunked', `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n`],
    // Found by the raw-socket fuzzer: Node's own refusal of a missing Host had none of the contract's headers.
    ['an HTTP/1.1 request without Host', `POST ${FIELD_PATH} HTTP/1.1\r\n\r\n`],
  ])('400 for %s', async (_, request) => {
    expectProtocolAnswer(await rawExchange(app.url, [request]), 400, 'Solicitud inválida.');
  });

  it('431 for headers over the limit', async () => {
    const answer = await rawExchange(app.url, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectProtocolAnswer(answer, 431, 'Encabezados demasiado grandes.');
  });

  it("413 for chunk extensions past the parser's limit, with no upstream call", async () => {
    const cookie = await app.signIn();
    const request = `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n4;${'e'.repeat(20_000)}\r\nid=1\r\n0\r\n\r\n`;
    expectProtocolAnswer(await rawExchange(app.url, [request]), 413, 'Solicitud demasiado grande.');
    expect(app.upstream.calls).toHaveLength(0);
  });

  it('505 for an HTTP version it does not speak', async () => {
    expectProtocolAnswer(await rawExchange(app.url, ['GET /healthz HTTP/4.2\r\nHost: x\r\n\r\n']), 505, 'Versión de HTTP no soportada.');
  });

  it('408 for headers that do not arrive within HEADERS_TIMEOUT_MS', async () => {
    const answer = await rawExchange(app.url, ['GET /healthz HTTP/1.1\r\n'], 3_000);
    expectProtocolAnswer(answer, 408, 'Tiempo de espera agotado.');
  });
});
