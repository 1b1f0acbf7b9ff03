import { Agent, request } from 'node:http';
import type { FairShareRow } from './fair-share-row.js';
import type { Spawned } from './processes.js';

const MiB = 1024 * 1024;
const FLOOD_MS = 3_000;
const BODIES_PER_SECOND = 10;

/**
 * A newcomer's `/healthz` on its keep-alive connection while ten 1 MiB urlencoded bodies of `+` a
 * second arrive, alternately signed in (decoded in full) and anonymous: what the CPU spent decoding
 * them costs the others. (cpu-flood.process.test.ts checks that every one is answered.)
 */
export async function benchPlusFlood(service: Spawned, path: string, cookie: string, log: (line: string) => void): Promise<FairShareRow> {
  const beside = `${BODIES_PER_SECOND} bodies of 1 MiB of \`+\` a second, signed in and not`;
  log(`fair share: a newcomer beside ${beside}`);
  const body = Buffer.concat([Buffer.from('id=1&value='), Buffer.alloc(MiB - 16, '+')]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const healthz = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      request(`${service.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      })
        .on('error', reject)
        .end();
    });
  for (let i = 0; i < 5; i += 1) await healthz();
  const answers: Array<Promise<void>> = [];
  const started = Date.now();
  let sent = 0;
  // On schedule even when this process's timers run late: each tick sends what is due.
  const flood = setInterval(
    () => {
      const due = Math.min((FLOOD_MS / 1000) * BODIES_PER_SECOND, Math.floor(((Date.now() - started) * BODIES_PER_SECOND) / 1000) + 1);
      while (sent < due) answers.push(post(`${service.url}${path}`, body, sent++ % 2 ? undefined : cookie));
    },
    1000 / BODIES_PER_SECOND / 2,
  );
  const times: number[] = [];
  try {
    while (Date.now() - started < FLOOD_MS) {
      times.push(await healthz());
      // One probe every 20 ms, as a client that is not itself a flood.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    clearInterval(flood);
    await Promise.all(answers);
    agent.destroy();
  }
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { beside, probe: 'GET /healthz', samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** One urlencoded POST of `body`, its answer read and dropped (an error counts as answered). */
function post(url: string, body: Buffer, cookie: string | undefined): Promise<void> {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length, ...(cookie ? { cookie } : {}) };
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end(body);
  });
}
