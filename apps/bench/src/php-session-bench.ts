import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { phpAvailable, redisServerAvailable, type PhpServer } from '@cotizaciones/adapters/testing/processes';
import type { LoadResult } from './load-options.js';
import { runLoad } from './load.js';
import { benchRepeatedSessions, type RepeatedSessionRow } from './repeated-session-bench.js';
import { median } from './measure.js';
import { LOAD_CONNECTIONS, startSessionModes, wholeRequestTimes, type LoadMode } from './php-session-modes.js';
import { EMPTY_SESSION_ID, memcachedInstalled, signIn, startPhpPeers, type PhpPeers } from './php-session-peers.js';
import { adapterReadTimes, decoderCosts, type DecoderRow } from './php-session-reads.js';
import { cpuMs, spawnServer, type Spawned } from './processes.js';
import { SERVICE_MAIN } from './targets.js';

export interface LatencyRow {
  readonly what: string;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  /** The median against the first row of its table (the service's own cookie sessions). */
  readonly overFirstMs: number;
}

export interface LargeSessionCost {
  readonly bytes: number;
  readonly requests: number;
  /** The service's CPU µs per signed-in request, with a small session and with the large one. */
  readonly smallUs: number;
  readonly largeUs: number;
}

export interface ThroughputRow {
  readonly mode: string;
  /** Requests of a signed-in user (`{"ok":true}`), or anonymous ones. */
  readonly signedIn: boolean;
  readonly rounds: number;
  /** Medians of the rounds. */
  readonly rps: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
  readonly problems: string[];
}

export interface PhpSessionLatency {
  /** What one request's `currentUser()` costs the adapter, reading a session a real PHP wrote. */
  readonly reads: LatencyRow[];
  /** Whole requests through the built service, interleaved round by round, by session mode. */
  readonly requests: LatencyRow[];
  /** The session reader against PHP's own decoder, on the same shop-cart sessions. */
  readonly decoder: DecoderRow[];
  /** igbinary sessions repeating one 50 KB string (150 and 600 KB): time and memory of one decode. */
  readonly repeated: RepeatedSessionRow[];
  /** A signed-in request's CPU with a 200 KB session against a small one (files). */
  readonly large: LargeSessionCost;
  /**
   * Each mode under load (32 connections, a small session each), interleaved round by round; then,
   * in the same rounds, anonymous requests to the php files service: with a cookie naming an empty
   * session file (what PHP leaves for any visitor of a page that starts a session), and with none.
   */
  readonly throughput: ThroughputRow[];
}

/** The service's CPU seconds so far, as its own /metrics tells (process.cpuUsage, µs resolution). */
async function serviceCpuSeconds(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total');
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

function rows(samples: ReadonlyMap<string, number[]>): LatencyRow[] {
  let first: number | undefined;
  return [...samples].map(([what, list]) => {
    const sorted = [...list].sort((a, b) => a - b);
    const p50 = at(sorted, 0.5);
    first ??= p50;
    return { what, samples: sorted.length, p50Ms: p50, p90Ms: at(sorted, 0.9), p99Ms: at(sorted, 0.99), overFirstMs: p50 - first };
  });
}

/**
 * SESSION_STORE=php measured: the adapter's read of a session a real PHP wrote (files, phpredis on one
 * server and on a 3-master cluster when redis-cli is installed; each touch mode), and what it adds to a
 * whole request against the service's own sessions (cookie, Redis), with files (php and igbinary),
 * phpredis, its cluster, php-memcached (where installed) and a PDO session table (SQLite; PostgreSQL with
 * TEST_POSTGRES_URL). Undefined when PHP or redis-server is not
 * installed.
 */
export async function benchPhpSessions(
  reads: number,
  rounds: number,
  load: { rounds: number; durationS: number },
  log: (line: string) => void,
): Promise<PhpSessionLatency | undefined> {
  if (!phpAvailable() || !redisServerAvailable()) {
    log('php or redis-server not installed: skipping the PHP session latency');
    return undefined;
  }
  const scratch = await mkdtemp(join(tmpdir(), 'bench-php-sessions-'));
  const withMemcached = memcachedInstalled(log);
  const services: Spawned[] = [];
  let peers: PhpPeers | undefined;
  try {
    // First, alone: no service or PHP server running beside the two decoders.
    log("PHP sessions: the reader against PHP's session_decode (52, 205, 820 KB carts; php and igbinary)");
    const decoder = await decoderCosts(scratch);
    const repeated = await benchRepeatedSessions(scratch, log);
    peers = await startPhpPeers(scratch, withMemcached, log);

    log(`PHP sessions: ${reads} adapter reads per mode`);
    const readTimes = await adapterReadTimes(peers, reads);

    log(`PHP sessions: ${rounds} interleaved rounds of whole requests per mode`);
    const modes = await startSessionModes(peers, services);
    const requestTimes = await wholeRequestTimes(modes, rounds);

    log(`PHP sessions: ${load.rounds} interleaved rounds of ${load.durationS} s under load per mode`);
    const files = modes.find((mode) => mode.name === 'php files')!;
    const anonymous = { url: files.url, pid: files.pid, expectedBody: NOT_SIGNED_IN };
    const throughput = await modesUnderLoad(
      [
        ...modes,
        { ...anonymous, name: PHP_FILES_EMPTY_SESSION, cookies: [`PHPSESSID=${EMPTY_SESSION_ID}`] },
        { ...anonymous, name: PHP_FILES_UNKNOWN_SESSION, cookies: [`PHPSESSID=${UNKNOWN_SESSION_ID}`] },
        { ...anonymous, name: PHP_FILES_NO_COOKIE, cookies: [''] },
      ],
      load,
    );

    log('PHP sessions: a signed-in request with a 200 KB session against a small one');
    const large = await largeSessionCost(peers.dir, join(scratch, 'cart-php-205000.bin'), peers.phpFiles, services);
    return { reads: rows(readTimes), requests: rows(requestTimes), decoder, repeated, large, throughput };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await peers?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A well-formed id no file has: a made-up or expired cookie. */
const UNKNOWN_SESSION_ID = '1'.repeat(26);
const NOT_SIGNED_IN = '{"ok":false,"msg":"No autenticado"}';
/** The rows of anonymous requests to the php files service, compared with each other (target-checks.ts). */
export const PHP_FILES_EMPTY_SESSION = "php files, anonymous, an empty session's cookie";
export const PHP_FILES_UNKNOWN_SESSION = "php files, anonymous, an unknown session's cookie";
export const PHP_FILES_NO_COOKIE = 'php files, anonymous, no cookie';

/**
 * Each mode as fast as it answers, the modes in turn, `rounds` times (after a warm-up each): medians. Every
 * other round runs them in reverse, so a machine growing busier during the run does not weigh on the last modes alone.
 */
async function modesUnderLoad(modes: readonly LoadMode[], load: { rounds: number; durationS: number }): Promise<ThroughputRow[]> {
  const results = modes.map(() => [] as Array<LoadResult & { cpuUs: number }>);
  const options = (mode: LoadMode, durationS: number) => ({
    url: mode.url,
    cookies: mode.cookies,
    connections: LOAD_CONNECTIONS,
    durationS,
    expectedBody: mode.expectedBody,
  });
  for (const mode of modes) await runLoad(options(mode, 1));
  for (let round = 0; round < load.rounds; round += 1) {
    const order = [...modes.entries()];
    for (const [i, mode] of round % 2 === 0 ? order : order.reverse()) {
      const before = cpuMs(mode.pid);
      const result = await runLoad(options(mode, load.durationS));
      results[i]!.push({ ...result, cpuUs: ((cpuMs(mode.pid) - before) / Math.max(1, result.requests)) * 1000 });
    }
  }
  return modes.map((mode, i) => {
    const runs = results[i]!;
    const problems = runs.flatMap((r) => [
      ...(r.errors ? [`${r.errors} errors`] : []),
      ...(r.non2xx ? [`${r.non2xx} non-2xx`] : []),
      ...(r.wrongBodies ? [`${r.wrongBodies} bodies other than ${mode.expectedBody ?? '{"ok":true}'}`] : []),
    ]);
    return {
      mode: mode.name,
      signedIn: mode.expectedBody === undefined,
      rounds: runs.length,
      rps: median(runs.map((r) => r.rps)),
      p99Ms: median(runs.map((r) => r.p99)),
      cpuUsPerRequest: median(runs.map((r) => r.cpuUs)),
      problems,
    };
  });
}

/**
 * The service's CPU per signed-in request (SESSION_STORE=php, files) with a small session and with a
 * large one: the same requests in alternating blocks, each block's CPU read from the service's metrics.
 */
async function largeSessionCost(dir: string, largeFile: string, php: PhpServer, services: Spawned[]): Promise<LargeSessionCost> {
  const service = await spawnServer(SERVICE_MAIN, [], {
    ACTIVITY_LOG_URL: 'memory:',
    PORT: '0',
    SESSION_STORE: 'php',
    PHP_SESSION_SAVE_PATH: dir,
  });
  services.push(service);
  const small = await signIn(php, '8');
  // The large session under its own id: the cart a real PHP encoded, with this user signed in.
  const largeId = 'l'.repeat(26);
  await writeFile(join(dir, `sess_${largeId}`), await readFile(largeFile));
  const large = `PHPSESSID=${largeId}`;
  const body = new URLSearchParams({ id: '12', field: 'estado', value: 'x' }).toString();
  const post = async (cookie: string) => {
    const answer = await fetch(`${service.url}${UPDATE_QUOTATION_FIELD.webPath}`, {
      method: 'POST',
      body,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const text = await answer.text();
    if (text !== '{"ok":true}') throw new Error(`answered ${answer.status} ${text}`);
  };
  const spent = { small: 0, large: 0 };
  const BLOCK = 200;
  const BLOCKS = 5;
  for (let warm = 0; warm < BLOCK; warm += 1) await Promise.all([post(small), post(large)]);
  for (let block = 0; block < BLOCKS * 2; block += 1) {
    const which = block % 2 === 0 ? 'small' : 'large';
    const before = await serviceCpuSeconds(service.url);
    for (let i = 0; i < BLOCK; i += 1) await post(which === 'small' ? small : large);
    spent[which] += (await serviceCpuSeconds(service.url)) - before;
  }
  const requests = BLOCK * BLOCKS;
  return {
    bytes: (await readFile(largeFile)).length,
    requests,
    smallUs: (spent.small / requests) * 1e6,
    largeUs: (spent.large / requests) * 1e6,
  };
}
