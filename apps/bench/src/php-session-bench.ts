import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { phpSessions, type PhpSessionsOptions } from '@cotizaciones/adapters/php-session';
import { freePort, phpAvailable, phpServer, redisProcess, redisServerAvailable, type PhpServer } from '@cotizaciones/adapters/testing/processes';
import { spawnServer, type Spawned } from './processes.js';
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

export interface PhpSessionLatency {
  /** What one request's `currentUser()` costs the adapter, reading a session a real PHP wrote. */
  readonly reads: LatencyRow[];
  /** Whole requests through the built service, interleaved round by round, by session mode. */
  readonly requests: LatencyRow[];
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
 * SESSION_STORE=php measured: the adapter's read of a session a real PHP wrote (files, phpredis; each
 * touch mode), and what it adds to a whole request against the service's own sessions (cookie, Redis).
 * Undefined when PHP or redis-server is not installed.
 */
export async function benchPhpSessions(reads: number, rounds: number, log: (line: string) => void): Promise<PhpSessionLatency | undefined> {
  if (!phpAvailable() || !redisServerAvailable()) {
    log('php or redis-server not installed: skipping the PHP session latency');
    return undefined;
  }
  const scratch = await mkdtemp(join(tmpdir(), 'bench-php-sessions-'));
  const redis = redisProcess(await freePort());
  const phps: PhpServer[] = [];
  const services: Spawned[] = [];
  try {
    await redis.start();
    const dir = join(scratch, 'sessions');
    await mkdir(dir);
    const savePath = `tcp://127.0.0.1:${new URL(redis.url).port}?prefix=bench_`;
    const phpFiles = await phpServer({ 'session.save_handler': 'files', 'session.save_path': dir });
    const phpRedis = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': savePath });
    phps.push(phpFiles, phpRedis);
    const signIn = async (php: PhpServer, id: string) => (await php.get(`session.php?action=signin&id=${id}`)).cookie ?? '';

    log(`PHP sessions: ${reads} adapter reads per mode`);
    const readTimes = new Map<string, number[]>();
    const filesCookie = await signIn(phpFiles, '61');
    const redisCookie = await signIn(phpRedis, '61');
    const control = { activityKey: 'LAST_ACTIVITY', idleSeconds: 1800 };
    for (const touch of ['none', 'expiry'] as const) {
      readTimes.set(`files, touch ${touch}`, []);
      await timeReads({ saveHandler: 'files', savePath: dir, touch, ...control }, filesCookie, reads, readTimes.get(`files, touch ${touch}`)!);
    }
    for (const touch of ['none', 'expiry', 'activity'] as const) {
      readTimes.set(`redis, touch ${touch}`, []);
      await timeReads({ saveHandler: 'redis', savePath, touch, ...control }, redisCookie, reads, readTimes.get(`redis, touch ${touch}`)!);
    }

    log(`PHP sessions: ${rounds} interleaved rounds of whole requests per mode`);
    // The listening line is how a started service is found: every mode writes the same request log.
    const quiet = { ACTIVITY_LOG_URL: 'memory:', PORT: '0' };
    const modes: Array<{ name: string; url: string; cookie: string }> = [];
    const add = async (name: string, env: Record<string, string>, cookie: (url: string) => Promise<string>) => {
      const service = await spawnServer(SERVICE_MAIN, [], { ...quiet, ...env });
      services.push(service);
      modes.push({ name, url: service.url, cookie: await cookie(service.url) });
    };
    await add('cookie', { DEV_LOGIN: '1' }, (url) => devLoginCookie(url, '5'));
    await add('redis (koa-session)', { DEV_LOGIN: '1', SESSION_STORE: 'redis', REDIS_URL: redis.url }, (url) => devLoginCookie(url, '5'));
    await add('php files', { SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: dir }, () => signIn(phpFiles, '5'));
    await add('php redis', { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: savePath }, () => signIn(phpRedis, '5'));
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
    return { reads: rows(readTimes), requests: rows(requestTimes) };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await Promise.all(phps.map((php) => php.stop()));
    await redis.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}
