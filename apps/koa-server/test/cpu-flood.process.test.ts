import { request, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, form } from './support/service.js';

const MiB = 1024 * 1024;
const FLOOD_MS = 3_000;
const BODIES_PER_SECOND = 10;
const TOTAL_BODIES = (FLOOD_MS / 1000) * BODIES_PER_SECOND;

/** One POST of `body`; resolves with the answer's text (or the error code). */
function post(url: string, body: Buffer, cookie: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length, ...(cookie ? { cookie } : {}) };
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end(body);
  });
}

describe('a flood of 1 MiB bodies of `+` (a child process)', () => {
  // How fast /healthz answers meanwhile is the bench's to measure; here, what is observable: every body and every probe answered.
  it(`answers every body and every /healthz while ${BODIES_PER_SECOND} bodies a second arrive, signed in and not`, async () => {
    const server = await startProcess({ DEV_LOGIN: '1', ACTIVITY_LOG_URL: 'memory:', SESSION_KEYS: 'cpu-flood-key-0123456789abcdef' });
    const cookie = cookieHeader(await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '7' }) }));
    // Just under the 1 MiB limit, so the signed-in ones are decoded in full: `id` then a million spaces.
    const body = Buffer.concat([Buffer.from('id=1&value='), Buffer.alloc(MiB - 16, '+')]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const healthz = () =>
      new Promise<number>((resolve, reject) => {
        request(`${server.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
          .on('error', reject)
          .end();
      });
    for (let i = 0; i < 5; i += 1) await healthz();

    const answers: Array<Promise<string>> = [];
    const started = Date.now();
    let sent = 0;
    // On schedule even when this process's timers run late: each tick sends what is due.
    const flood = setInterval(
      () => {
        const due = Math.min(TOTAL_BODIES, Math.floor(((Date.now() - started) * BODIES_PER_SECOND) / 1000) + 1);
        // Alternately signed in and anonymous.
        while (sent < due) answers.push(post(`${server.url}${FIELD_PATH}`, body, sent++ % 2 ? undefined : cookie));
      },
      1000 / BODIES_PER_SECOND / 2,
    );
    // Probes back to back, each sent once the previous one is answered, while the flood lasts.
    const probes: number[] = [];
    while (Date.now() - started < FLOOD_MS) probes.push(await healthz());
    clearInterval(flood);
    const texts = await Promise.all(answers);
    agent.destroy();

    expect(sent).toBeGreaterThanOrEqual(TOTAL_BODIES - 1);
    expect(new Set(texts)).toEqual(new Set(['{"ok":true}', '{"ok":false,"msg":"No autenticado"}']));
    expect(probes.length).toBeGreaterThan(1);
    expect(new Set(probes)).toEqual(new Set([200]));
  }, 30_000);
});
