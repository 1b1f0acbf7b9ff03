import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from './support/app.js';
import { parseAnswer, rawExchange } from './support/raw-socket.js';
import { FIELD_PATH } from './support/service.js';

const TIMEOUT_ANSWER = JSON.stringify({ ok: false, msg: 'Tiempo de espera agotado.' });
const drip = (text: string, everyMs: number) => [...text].map((data) => ({ delayMs: everyMs, data }));

describe('slow clients', () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(() => app?.close());

  it('a client sending its headers a byte at a time is answered 408 and cut off at HEADERS_TIMEOUT_MS', async () => {
    app = await startApp({}, {}, { headersTimeoutMs: 500, requestTimeoutMs: 60_000 });
    const answer = await rawExchange(app.url, drip(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`, 50), 0);
    expect(answer.status).toBe(408);
    expect(answer.body).toBe(TIMEOUT_ANSWER);
    expect(answer.headers.connection).toBe('close');
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(450);
    // Far before REQUEST_TIMEOUT_MS (60 s), which would answer were the headers limit not applied.
    expect(answer.elapsedMs).toBeLessThan(15_000);
  });

  it('a client sending its body a byte at a time is answered 408 and cut off at REQUEST_TIMEOUT_MS', async () => {
    app = await startApp({}, {}, { headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const cookie = await app.signIn();
    const body = 'id=1&field=estado&value=' + 'x'.repeat(1_200);
    const head = `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await rawExchange(app.url, [head, ...drip(body, 50)], 0);
    expect(answer.status).toBe(408);
    expect(answer.body).toBe(TIMEOUT_ANSWER);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(950);
    // Far before the drip would end (a minute).
    expect(answer.elapsedMs).toBeLessThan(15_000);
    expect(app.upstream.calls).toHaveLength(0);
  });

  it('connections beyond MAX_CONNECTIONS are closed at once; the ones already open keep working', async () => {
    app = await startApp({}, {}, { maxConnections: 5 });
    const { port } = new URL(app.url);
    const open = async () => {
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    };
    const kept: Socket[] = [];
    for (let i = 0; i < 5; i += 1) kept.push(await open());
    // Half-sent requests hold their connections; the sixth is closed without an answer.
    for (const socket of kept.slice(1)) socket.write('POST / HTTP/1.1\r\nHost: x\r\n');
    const extra = await open();
    extra.on('error', () => undefined);
    extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    let extraAnswer = '';
    extra.on('data', (chunk: Buffer) => (extraAnswer += chunk.toString()));
    await once(extra, 'close');
    expect(extraAnswer).toBe('');

    const first = kept[0]!;
    let received = '';
    first.on('data', (chunk: Buffer) => (received += chunk.toString()));
    first.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!received.endsWith('{"ok":true}')) await once(first, 'data');
    expect(parseAnswer(received).status).toBe(200);
    for (const socket of kept) socket.destroy();
  });
});
