import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { decodePhpSession, phpSessions, type PhpSessionFormat, type PhpSessionsOptions } from '@cotizaciones/adapters/php-session';
import {
  freePort,
  memcachedProcess,
  pdoSessionTable,
  phpAvailable,
  phpServer,
  redisClusterAvailable,
  redisClusterProcess,
  redisProcess,
  redisServerAvailable,
  type PdoSessionTable,
  type PhpServer,
  type RedisClusterProcess,
} from '@cotizaciones/adapters/testing/processes';
import { runLoad, type LoadResult } from './load.js';
import { benchRepeatedSessions, type RepeatedSessionRow } from './repeated-session-bench.js';
import { median } from './measure.js';
import { cpuMs, spawnServer, type Spawned } from './processes.js';
import { devLoginCookie } from './sessions.js';
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

export interface DecoderRow {
  /** `session.serialize_handler` of the session. */
  readonly format: PhpSessionFormat;
  readonly bytes: number;
  /** CPU µs of one `session_decode` in PHP itself (median of 7 samples). */
  readonly phpUs: number;
  /** CPU µs of the service's read of the same bytes (the user and activity keys built, the rest checked). */
  readonly serviceUs: number;
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

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
const CART_SESSION = fileURLToPath(new URL('../php/cart-session.php', import.meta.url));
const SAMPLES = 7;

/** CPU µs of one read of `bytes` by the adapter's reader, as PHP's is measured: median of samples of many reads. */
function readerCpuUs(bytes: Uint8Array, format: PhpSessionFormat): number {
  const used = new Set(['user', 'LAST_ACTIVITY']);
  const read = () => decodePhpSession(bytes, format, { maxBytes: 4 * 1024 * 1024 }, used);
  const perSample = Math.max(1, Math.floor(20_000_000 / bytes.length));
  for (let i = 0; i < perSample; i += 1) read();
  const samples: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const started = process.cpuUsage();
    for (let i = 0; i < perSample; i += 1) read();
    const spent = process.cpuUsage(started);
    samples.push((spent.user + spent.system) / perSample);
  }
  return median(samples);
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

/** `reads` reads of one PHP-written session through the adapter, timed one by one. */
async function timeReads(options: PhpSessionsOptions, cookie: string, reads: number, into: number[]): Promise<void> {
  const sessions = phpSessions(options);
  await sessions.ready(2_000);
  try {
    for (let i = 0; i < reads; i += 1) {
      const started = performance.now();
      const user = await sessions.sessionFor(cookie).currentUser();
      into.push(performance.now() - started);
      if (user?.id !== '61') throw new Error(`read ${i} found ${user?.id ?? 'no user'}`);
    }
  } finally {
    await sessions.close();
  }
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
  const redis = redisProcess(await freePort());
  // php-memcached's mode only where memcached and the extension are installed (as .ci/run does).
  const memcached =
    spawnSync('memcached', ['-h']).status === 0 && execFileSync('php', ['-m'], { encoding: 'utf8' }).split('\n').includes('memcached')
      ? memcachedProcess(await freePort())
      : undefined;
  if (!memcached) log('memcached or php-memcached not installed: no php memcached mode');
  const phps: PhpServer[] = [];
  const services: Spawned[] = [];
  let cluster: RedisClusterProcess | undefined;
  const tables: PdoSessionTable[] = [];
  try {
    // First, alone: no service or PHP server running beside the two decoders.
    log("PHP sessions: the reader against PHP's session_decode (52, 205, 820 KB carts; php and igbinary)");
    const decoder: DecoderRow[] = [];
    for (const format of ['php', 'igbinary'] as const) {
      for (const size of [52_000, 205_000, 820_000]) {
        const file = join(scratch, `cart-${format}-${size}.bin`);
        execFileSync('php', [CART_SESSION, String(size), file, format]);
        const phpUs = Number(execFileSync('php', [CART_SESSION, '--decode', file, String(SAMPLES), format], { encoding: 'utf8' }).trim());
        const bytes = await readFile(file);
        decoder.push({ format, bytes: bytes.length, phpUs, serviceUs: readerCpuUs(bytes, format) });
      }
    }
    const repeated = await benchRepeatedSessions(scratch, log);
    await redis.start();
    await memcached?.start();
    const dir = join(scratch, 'sessions');
    await mkdir(dir);
    const igbinaryDir = join(scratch, 'sessions-igbinary');
    await mkdir(igbinaryDir);
    // Made first, so that by the load it has long been unchanged: final, as PHP leaves a visitor's session.
    await writeFile(join(dir, `sess_${EMPTY_SESSION_ID}`), '');
    const savePath = `tcp://127.0.0.1:${new URL(redis.url).port}?prefix=bench_`;
    const phpFiles = await phpServer({ 'session.save_handler': 'files', 'session.save_path': dir });
    const phpRedis = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': savePath });
    const phpFilesIgbinary = await phpServer({
      'session.save_handler': 'files',
      'session.save_path': igbinaryDir,
      'session.serialize_handler': 'igbinary',
    });
    const phpMemcached = memcached && (await phpServer({ 'session.save_handler': 'memcached', 'session.save_path': memcached.address }));
    phps.push(phpFiles, phpRedis, phpFilesIgbinary, ...(phpMemcached ? [phpMemcached] : []));
    if (redisClusterAvailable()) cluster = await redisClusterProcess({ masters: 3 });
    else log('redis-cli not installed: no php rediscluster rows');
    const clusterPath = cluster ? `${cluster.seeds}&timeout=2&read_timeout=2` : '';
    const phpCluster = cluster ? await phpServer({ 'session.save_handler': 'rediscluster', 'session.save_path': clusterPath }) : undefined;
    if (phpCluster) phps.push(phpCluster);
    // A PDO session table (Symfony's schema) in SQLite, and in PostgreSQL with TEST_POSTGRES_URL (as the bench's other PostgreSQL target).
    const pdo: Array<{ name: string; table: PdoSessionTable; php: PhpServer }> = [];
    const postgres = process.env.TEST_POSTGRES_URL;
    for (const [name, engine, where] of [
      ['php pdo', 'sqlite', join(scratch, 'sessions.db')],
      ...(postgres ? [['php pdo, postgres', 'postgres', postgres] as const] : []),
    ] as const) {
      const table = await pdoSessionTable(engine, where).catch((error: unknown) => log(`no ${name} row: ${(error as Error).message}`));
      if (!table) continue;
      tables.push(table);
      const php = await phpServer(table.phpIni);
      phps.push(php);
      pdo.push({ name, table, php });
    }
    const signIn = async (php: PhpServer, id: string) => (await php.get(`session.php?action=signin&id=${id}`)).cookie ?? '';

    log(`PHP sessions: ${reads} adapter reads per mode`);
    const readTimes = new Map<string, number[]>();
    const filesCookie = await signIn(phpFiles, '61');
    const redisCookie = await signIn(phpRedis, '61');
    const control = { activityKey: 'LAST_ACTIVITY', idleSeconds: 1800 };
    for (const touch of ['none', 'expiry'] as const) {
      readTimes.set(`files, touch ${touch}`, []);
      await timeReads(
        { saveHandler: 'files', savePath: dir, touch, ...control },
        filesCookie,
        reads,
        readTimes.get(`files, touch ${touch}`)!,
      );
    }
    for (const touch of ['none', 'expiry', 'activity'] as const) {
      readTimes.set(`redis, touch ${touch}`, []);
      await timeReads({ saveHandler: 'redis', savePath, touch, ...control }, redisCookie, reads, readTimes.get(`redis, touch ${touch}`)!);
    }
    if (phpCluster) {
      const clusterCookie = await signIn(phpCluster, '61');
      for (const touch of ['none', 'expiry', 'activity'] as const) {
        const times: number[] = [];
        readTimes.set(`rediscluster, touch ${touch}`, times);
        await timeReads({ saveHandler: 'rediscluster', savePath: clusterPath, touch, ...control }, clusterCookie, reads, times);
      }
    }
    if (memcached && phpMemcached) {
      const memcachedCookie = await signIn(phpMemcached, '61');
      for (const touch of ['none', 'expiry', 'activity'] as const) {
        const times: number[] = [];
        readTimes.set(`memcached, touch ${touch}`, times);
        await timeReads({ saveHandler: 'memcached', savePath: memcached.address, touch, ...control }, memcachedCookie, reads, times);
      }
    }
    for (const { name, table, php } of pdo) {
      const pdoCookie = await signIn(php, '61');
      for (const touch of ['none', 'expiry', 'activity'] as const) {
        const times: number[] = [];
        readTimes.set(`${name.slice('php '.length)}, touch ${touch}`, times);
        const where = { saveHandler: 'pdo', savePath: table.savePath, pdoTable: table.table } as const;
        await timeReads({ ...where, touch, ...control }, pdoCookie, reads, times);
      }
    }

    log(`PHP sessions: ${rounds} interleaved rounds of whole requests per mode`);
    // The upstream over HTTP with the default client, as deployed; the listening line is how a started service is found.
    const stub = await spawnServer(STUB, ['0'], {});
    services.push(stub);
    const quiet = { ACTIVITY_LOG_URL: 'memory:', PORT: '0', UPSTREAM_BASE_URL: stub.url, UPSTREAM_TOKEN: 'bench-token' };
    const modes: Array<LoadMode & { cookie: string }> = [];
    const add = async (name: string, env: Record<string, string>, cookie: (url: string, user: string) => Promise<string>) => {
      const service = await spawnServer(SERVICE_MAIN, [], { ...quiet, ...env });
      services.push(service);
      const cookies: string[] = [];
      for (let user = 100; user < 100 + LOAD_CONNECTIONS; user += 1) cookies.push(await cookie(service.url, String(user)));
      modes.push({ name, url: service.url, cookie: await cookie(service.url, '5'), cookies, pid: service.pid });
    };
    await add('cookie', { DEV_LOGIN: '1' }, (url, user) => devLoginCookie(url, user));
    await add('redis (koa-session)', { DEV_LOGIN: '1', SESSION_STORE: 'redis', REDIS_URL: redis.url }, (url, user) =>
      devLoginCookie(url, user),
    );
    await add('php files', { SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: dir }, (_url, user) => signIn(phpFiles, user));
    // One add(…) per PHP save handler or serializer, named `php <handler>[, <serializer>]`: target-checks.ts
    // holds every `php …` row of the session-modes table to ≥ 0.8 × cookie's req/s.
    await add('php redis', { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: savePath }, (_url, user) =>
      signIn(phpRedis, user),
    );
    if (phpCluster) {
      await add(
        'php rediscluster',
        { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: clusterPath },
        (_url, user) => signIn(phpCluster, user),
      );
    }
    if (memcached && phpMemcached)
      await add(
        'php memcached',
        { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'memcached', PHP_SESSION_SAVE_PATH: memcached.address },
        (_url, user) => signIn(phpMemcached, user),
      );
    for (const { name, table, php } of pdo) {
      await add(
        name,
        {
          SESSION_STORE: 'php',
          PHP_SESSION_SAVE_HANDLER: 'pdo',
          PHP_SESSION_SAVE_PATH: table.savePath,
          PHP_SESSION_PDO_TABLE: table.table,
        },
        (_url, user) => signIn(php, user),
      );
    }
    await add(
      'php files, igbinary',
      { SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: igbinaryDir, PHP_SESSION_SERIALIZE_HANDLER: 'igbinary' },
      (_url, user) => signIn(phpFilesIgbinary, user),
    );
    const requestTimes = new Map(modes.map((mode) => [mode.name, [] as number[]]));
    const body = new URLSearchParams({ id: '12', field: 'estado', value: 'x' }).toString();
    for (let round = -20; round < rounds; round += 1) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        const started = performance.now();
        const answer = await fetch(`${mode.url}${UPDATE_QUOTATION_FIELD.webPath}`, {
          method: 'POST',
          body,
          headers: { cookie: mode.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        });
        const text = await answer.text();
        const elapsed = performance.now() - started;
        if (text !== '{"ok":true}') throw new Error(`${mode.name}: answered ${answer.status} ${text}`);
        if (round >= 0) requestTimes.get(mode.name)!.push(elapsed);
      }
    }

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
    const large = await largeSessionCost(dir, join(scratch, 'cart-php-205000.bin'), phpFiles, services, signIn);
    return { reads: rows(readTimes), requests: rows(requestTimes), decoder, repeated, large, throughput };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await Promise.all(phps.map((php) => php.stop()));
    await Promise.all(tables.map((table) => table.drop()));
    await redis.stop();
    await cluster?.stop();
    await memcached?.stop();
    memcached?.remove();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Connections of the load on each session mode, each its own signed-in user. */
const LOAD_CONNECTIONS = 32;
const EMPTY_SESSION_ID = '0'.repeat(26);
/** A well-formed id no file has: a made-up or expired cookie. */
const UNKNOWN_SESSION_ID = '1'.repeat(26);
const NOT_SIGNED_IN = '{"ok":false,"msg":"No autenticado"}';
/** The rows of anonymous requests to the php files service, compared with each other (target-checks.ts). */
export const PHP_FILES_EMPTY_SESSION = "php files, anonymous, an empty session's cookie";
export const PHP_FILES_UNKNOWN_SESSION = "php files, anonymous, an unknown session's cookie";
export const PHP_FILES_NO_COOKIE = 'php files, anonymous, no cookie';

interface LoadMode {
  readonly name: string;
  readonly url: string;
  readonly cookies: string[];
  readonly pid: number;
  /** Unset: signed in, `{"ok":true}`. */
  readonly expectedBody?: string;
}

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
async function largeSessionCost(
  dir: string,
  largeFile: string,
  php: PhpServer,
  services: Spawned[],
  signIn: (php: PhpServer, id: string) => Promise<string>,
): Promise<LargeSessionCost> {
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
