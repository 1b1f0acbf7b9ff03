import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import type { FairShareRow } from './fair-share-row.js';
import { benchPlusFlood } from './plus-flood-bench.js';
import { memoryMb, spawnServer, type Spawned } from './processes.js';
import { signedSessionCookie } from './sessions.js';
import { SERVICE_MAIN, SESSION_KEY } from './targets.js';

const LOAD = fileURLToPath(new URL('./pipelining-load.js', import.meta.url));
const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));

/**
 * What the newcomer sends, one after the other, in each round of a scenario: on its keep-alive
 * connection, or a probe on a new connection each time, as a kubelet sends it.
 */
type Newcomer = 'GET /healthz' | 'POST' | 'GET /healthz (new connection)' | 'GET /readyz (new connection)';

/**
 * The same number of other clients, ordinary (one request at a time) or pipelining DEPTH at a time;
 * and the probes beside 800 busy connections (answered ahead of the fair-share line).
 */
const SCENARIOS: ReadonlyArray<{ beside: string; connections: number; depth: number; post: boolean; newcomer: readonly Newcomer[] }> = [
  { beside: '64 clients posting, one request at a time', connections: 64, depth: 1, post: true, newcomer: ['GET /healthz', 'POST'] },
  { beside: '64 clients posting, 16 pipelined at a time', connections: 64, depth: 16, post: true, newcomer: ['GET /healthz', 'POST'] },
  { beside: '200 clients on /healthz, one request at a time', connections: 200, depth: 1, post: false, newcomer: ['GET /healthz', 'POST'] },
  {
    beside: '200 clients on /healthz, 64 pipelined at a time',
    connections: 200,
    depth: 64,
    post: false,
    newcomer: ['GET /healthz', 'POST'],
  },
  {
    beside: '800 clients posting, one request at a time',
    connections: 800,
    depth: 1,
    post: true,
    newcomer: ['GET /healthz (new connection)', 'GET /readyz (new connection)'],
  },
];

/** What a flood of pipelined requests costs: connections that each write one 64 KiB read of tiny GETs and never read. */
export interface FloodRow {
  readonly connections: number;
  readonly bytesEach: number;
  /** The service's resident memory at its highest during the flood, above what it was before. */
  readonly rssAddedMb: number;
  /** A newcomer's `/healthz` sent once every flood connection has written. */
  readonly newcomerMs: number;
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Fair share measured: a newcomer's `/healthz` and POST latency beside clients that pipeline, against
 * beside the same number of ordinary clients, the probes' beside 800 busy connections, and
 * `/healthz` beside a flood of `+` bodies, on the built service (cookie sessions, a 0 ms upstream).
 */
export async function benchFairShare(probes: number, log: (line: string) => void): Promise<{ rows: FairShareRow[]; flood: FloodRow }> {
  const stub = await spawnServer(STUB, ['0'], {});
  const service = await spawnServer(SERVICE_MAIN, [], {
    UPSTREAM_BASE_URL: stub.url,
    UPSTREAM_TOKEN: 'bench-token',
    SESSION_KEYS: SESSION_KEY,
    ACTIVITY_LOG_URL: 'memory:',
    PORT: '0',
    LOG_LEVEL: 'info',
  });
  const cookie = signedSessionCookie('1', SESSION_KEY);
  const path = UPDATE_QUOTATION_FIELD.webPath;
  const rows: FairShareRow[] = [];
  const send = async (request: Newcomer): Promise<[number, string]> => {
    if (request.endsWith('(new connection)')) return freshGet(`${service.url}${request.split(' ')[1]}`);
    const response =
      request === 'POST'
        ? await fetch(`${service.url}${path}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'id=12&field=estado&value=aprobada',
          })
        : await fetch(`${service.url}/healthz`);
    return [response.status, await response.text()];
  };
  try {
    // First, on the fresh process: what the flood adds is then not hidden in a heap the scenarios grew.
    const flood = await benchFlood(service, 300, log);
    for (const scenario of SCENARIOS) {
      log(`fair share: a newcomer beside ${scenario.beside}`);
      const load = spawn(
        process.execPath,
        [LOAD, service.url, String(scenario.connections), String(scenario.depth), scenario.post ? path : '/healthz', cookie],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      const [chunk] = (await once(load.stdout, 'data')) as [Buffer];
      if (!chunk.toString().includes('ready')) throw new Error('the load did not start');
      const times = new Map<Newcomer, number[]>(scenario.newcomer.map((request) => [request, []]));
      for (let i = 0; i < probes; i += 1) {
        for (const request of scenario.newcomer) {
          const started = performance.now();
          const [status, text] = await send(request);
          times.get(request)!.push(performance.now() - started);
          if (status !== 200 || (request === 'POST' && text !== '{"ok":true}'))
            throw new Error(`the newcomer's ${request} answered ${status} ${text}`);
        }
      }
      load.kill();
      await once(load, 'exit');
      for (const [request, list] of times) {
        const sorted = [...list].sort((a, b) => a - b);
        rows.push({
          beside: scenario.beside,
          probe: request === 'POST' ? `POST ${path}` : request,
          samples: sorted.length,
          p50Ms: at(sorted, 0.5),
          p99Ms: at(sorted, 0.99),
        });
      }
    }
    rows.push(await benchPlusFlood(service, path, cookie, log));
    return { rows, flood };
  } finally {
    await service.stop();
    await stub.stop();
  }
}

/** A GET on a connection of its own, closed after the answer: as a kubelet or balancer probes. */
function freshGet(url: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve([res.statusCode ?? 0, text]));
    }).on('error', reject);
  });
}

/** `connections` clients each write 64 KiB of tiny pipelined GETs at once and never read what comes back. */
async function benchFlood(service: Spawned, connections: number, log: (line: string) => void): Promise<FloodRow> {
  log(`fair share: ${connections} connections writing 64 KiB of pipelined GET /healthz each, never reading`);
  const pid = service.pid;
  const { port, hostname } = new URL(service.url);
  const request = `GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
  const flood = Buffer.from(request.repeat(Math.floor(65_536 / request.length)));
  const before = memoryMb(pid).rss;
  let highest = before;
  const sampler = setInterval(() => (highest = Math.max(highest, memoryMb(pid).rss)), 10);
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      // Never read: the answers stay in the kernel's buffers, as with a client that only sends.
      socket.pause();
      return once(socket, 'connect').then(() => new Promise<typeof socket>((resolve) => socket.write(flood, () => resolve(socket))));
    }),
  );
  try {
    const started = performance.now();
    await (await fetch(`${service.url}/healthz`)).text();
    const newcomerMs = performance.now() - started;
    // The flood's requests are parsed by now; a few more samples catch what they left behind.
    for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    return { connections, bytesEach: flood.length, rssAddedMb: Math.max(highest, memoryMb(pid).rss) - before, newcomerMs };
  } finally {
    clearInterval(sampler);
    for (const socket of sockets) socket.destroy();
  }
}
