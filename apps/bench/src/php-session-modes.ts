import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import { fileURLToPath } from 'node:url';
import { spawnServer, type Spawned } from './processes.js';
import { signIn, type PhpPeers } from './php-session-peers.js';
import { devLoginCookie } from './sessions.js';
import { SERVICE_MAIN } from './targets.js';

/** Connections of the load on each session mode, each its own signed-in user. */
export const LOAD_CONNECTIONS = 32;

/** A started service under one session mode, with the cookies of its signed-in users. */
export interface LoadMode {
  readonly name: string;
  readonly url: string;
  readonly cookies: string[];
  readonly pid: number;
  /** Unset: signed in, `{"ok":true}`. */
  readonly expectedBody?: string;
}

export interface SessionMode extends LoadMode {
  /** The user of the one-at-a-time requests. */
  readonly cookie: string;
}

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));

/**
 * The built service under each session mode: its own (cookie, Redis) and SESSION_STORE=php beside each
 * PHP app, with the stub upstream they call; every process started is pushed to `services` (the caller stops them).
 */
export async function startSessionModes(peers: PhpPeers, services: Spawned[]): Promise<SessionMode[]> {
  // The upstream over HTTP with the default client, as deployed; the listening line is how a started service is found.
  const stub = await spawnServer(STUB, ['0'], {});
  services.push(stub);
  const quiet = { ACTIVITY_LOG_URL: 'memory:', PORT: '0', UPSTREAM_BASE_URL: stub.url, UPSTREAM_TOKEN: 'bench-token' };
  const modes: SessionMode[] = [];
  const add = async (name: string, env: Record<string, string>, cookie: (url: string, user: string) => Promise<string>) => {
    const service = await spawnServer(SERVICE_MAIN, [], { ...quiet, ...env });
    services.push(service);
    const cookies: string[] = [];
    for (let user = 100; user < 100 + LOAD_CONNECTIONS; user += 1) cookies.push(await cookie(service.url, String(user)));
    modes.push({ name, url: service.url, cookie: await cookie(service.url, '5'), cookies, pid: service.pid });
  };
  const { memcached, cluster } = peers;
  await add('cookie', { DEV_LOGIN: '1' }, (url, user) => devLoginCookie(url, user));
  await add('redis (koa-session)', { DEV_LOGIN: '1', SESSION_STORE: 'redis', REDIS_URL: peers.redis.url }, (url, user) =>
    devLoginCookie(url, user),
  );
  await add('php files', { SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: peers.dir }, (_url, user) => signIn(peers.phpFiles, user));
  // One add(…) per PHP save handler or serializer, named `php <handler>[, <serializer>]`: target-checks.ts
  // holds every `php …` row of the session-modes table to ≥ 0.8 × cookie's req/s.
  await add('php redis', { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: peers.savePath }, (_url, user) =>
    signIn(peers.phpRedis, user),
  );
  if (cluster) {
    await add(
      'php rediscluster',
      { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: cluster.savePath },
      (_url, user) => signIn(cluster.php, user),
    );
  }
  if (memcached)
    await add(
      'php memcached',
      { SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'memcached', PHP_SESSION_SAVE_PATH: memcached.address },
      (_url, user) => signIn(memcached.php, user),
    );
  for (const { name, table, php } of peers.pdo) {
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
    { SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: peers.igbinaryDir, PHP_SESSION_SERIALIZE_HANDLER: 'igbinary' },
    (_url, user) => signIn(peers.phpFilesIgbinary, user),
  );
  return modes;
}

/** Whole requests, one at a time, the modes interleaved round by round (after 20 warm-up rounds), timed, by mode. */
export async function wholeRequestTimes(modes: readonly SessionMode[], rounds: number): Promise<Map<string, number[]>> {
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
  return requestTimes;
}
