import { describe, expect, it } from 'vitest';
import { expectContractHeaders } from './support/contract-headers.js';
import { startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, ITEM_PATH, form } from './support/service.js';
import { memoryOf, streamPost, type StreamedPost } from './support/streaming-client.js';

const MiB = 1024 * 1024;
/** What each hostile client is ready to send: far past the 1 MiB limit. */
const STREAMED = 300 * MiB;
/**
 * Peak resident memory may grow this much over the service's idle size, whatever the clients send.
 * Measured growth: 20–33 MiB on Node 20, 43–68 MiB on Node 24 (a larger young generation holds the
 * discarded bytes longer). Buffering the bodies, as before the fix, took 3 clients to 700 MiB.
 */
const MEMORY_ALLOWANCE_MIB = 128;
const TOO_LARGE = '{"ok":false,"msg":"Solicitud demasiado grande."}';
const NOT_SIGNED_IN = '{"ok":false,"msg":"No autenticado"}';

const multipart = (cookie: string | undefined, framing: StreamedPost['framing'], path = FIELD_PATH): StreamedPost => ({
  path,
  cookie,
  framing,
  contentType: 'multipart/form-data; boundary=b',
  head: '--b\r\nContent-Disposition: form-data; name="id"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name="value"\r\n\r\n',
  filler: 0x78,
  totalBytes: STREAMED,
  deadlineMs: 40_000,
});
const urlencoded = (cookie: string | undefined, framing: StreamedPost['framing'], path = FIELD_PATH): StreamedPost => ({
  path,
  cookie,
  framing,
  contentType: 'application/x-www-form-urlencoded',
  head: 'id=1&value=',
  filler: 0x61,
  totalBytes: STREAMED,
  deadlineMs: 40_000,
});

describe('bodies streamed far past the limit (a child process, RSS from /proc)', () => {
  it('stops reading, answers 413 or No autenticado with Connection: close, ends each connection, and memory stays flat', async () => {
    const server = await startProcess({ DEV_LOGIN: '1', ACTIVITY_LOG_URL: 'memory:', SESSION_KEYS: 'body-limits-key-0123456789abcdef' });
    const pid = server.child.pid!;
    const login = await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '7' }) });
    const cookie = cookieHeader(login);
    // Warm up every path the flood takes, then take the idle size.
    for (const body of [
      form({ id: '1' }),
      (() => {
        const data = new FormData();
        data.append('id', '1');
        return data;
      })(),
    ]) {
      expect(await (await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body, headers: { cookie } })).text()).toBe('{"ok":true}');
    }
    const idle = memoryOf(pid).rssMiB;

    const cases: Array<[string, StreamedPost, number, string]> = [
      ['signed-in multipart, chunked', multipart(cookie, 'chunked'), 413, TOO_LARGE],
      ['signed-in multipart, chunked (B)', multipart(cookie, 'chunked', ITEM_PATH), 413, TOO_LARGE],
      ['signed-in multipart, Content-Length', multipart(cookie, 'content-length'), 413, TOO_LARGE],
      ['signed-in urlencoded, chunked', urlencoded(cookie, 'chunked'), 413, TOO_LARGE],
      ['signed-in urlencoded, Content-Length', urlencoded(cookie, 'content-length', ITEM_PATH), 413, TOO_LARGE],
      ['anonymous multipart, chunked', multipart(undefined, 'chunked'), 200, NOT_SIGNED_IN],
      ['anonymous multipart, Content-Length', multipart(undefined, 'content-length', ITEM_PATH), 200, NOT_SIGNED_IN],
      ['anonymous urlencoded, chunked', urlencoded(undefined, 'chunked'), 200, NOT_SIGNED_IN],
    ];
    let sampled = idle;
    const sampler = setInterval(() => (sampled = Math.max(sampled, memoryOf(pid).rssMiB)), 10);
    const results = await Promise.all(cases.map(([, post]) => streamPost(server.url, post)));
    clearInterval(sampler);
    const peak = memoryOf(pid).peakMiB;
    console.log(
      `body limits on Node ${process.versions.node}: idle ${idle.toFixed(1)} MiB, sampled peak ${sampled.toFixed(1)} MiB, kernel peak ${peak.toFixed(1)} MiB`,
    );

    for (const [index, [name, , status, body]] of cases.entries()) {
      const { response, connectionEnded, sentBytes, events } = results[index]!;
      expect(response, `${name}: ${events.join(', ')}`).toBeDefined();
      expect({ name, status: response!.status, body: await response!.text() }).toEqual({ name, status, body });
      expectContractHeaders(response!);
      expect(response!.headers.get('connection'), name).toBe('close');
      expect(connectionEnded, name).toBe(true);
      // Stopped long before the end: the limit, then a bounded lingering read (64 MiB) at most.
      expect(sentBytes, name).toBeLessThan(128 * MiB);
    }
    expect(sampled).toBeLessThan(idle + MEMORY_ALLOWANCE_MIB);
    expect(peak).toBeLessThan(idle + MEMORY_ALLOWANCE_MIB);
    // The service is still serving.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
