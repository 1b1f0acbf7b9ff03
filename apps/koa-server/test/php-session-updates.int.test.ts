import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  restartablePort,
  memcachedProcess,
  missing,
  missingPhp,
  pdoExtension,
  pdoSessionTable,
  phpServer,
  redisClusterAvailable,
  redisClusterProcess,
  redisProcess,
  redisServerAvailable,
  type MemcachedProcess,
  type PdoSessionTable,
  type PhpServer,
  type RedisClusterProcess,
  type RedisProcess,
} from '@cotizaciones/adapters/testing';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

// "No PHP session update is lost under concurrent requests": real PHP requests (php -S with two workers,
// each request under PHP's own session lock) add 1 to a counter in the session while the service answers
// requests on the same session and, in activity mode, rewrites its activity key. Counted at the end: every
// increment PHP answered is in the session.

const PHP_REQUESTS = 240;
const PHP_CLIENTS = 2;
const SERVICE_CLIENTS = 4;

interface Setup {
  name: string;
  rewrites: boolean;
  /** PHP's concurrent requests on the session (default PHP_CLIENTS): one where PHP's handler takes no lock. */
  phpClients?: number;
  open(): Promise<{ ini: Record<string, string>; env: Record<string, string> }>;
}

// The save handlers and serializers below; the PDO table is on MariaDB, or SQLite where there is none.
const PHP_EXTENSIONS = ['redis', 'memcached', 'igbinary', pdoExtension(process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite')] as const;

describe.skipIf(missingPhp(...PHP_EXTENSIONS) || missing('redis-server', redisServerAvailable()))(
  'no PHP session update is lost beside the service: PHP requests counting in the session, service requests touching it',
  () => {
    let scratch: string;
    let redis: RedisProcess;
    let memcached: MemcachedProcess;
    // phpredis's cluster handler, where redis-cli can join a cluster (.ci/run installs it).
    const withCluster = !missing('redis-cli (redis-tools)', redisClusterAvailable());
    let cluster: RedisClusterProcess | undefined;
    const tables: PdoSessionTable[] = [];
    beforeAll(async () => {
      if (withCluster) cluster = await redisClusterProcess({ masters: 3 });
      scratch = await mkdtemp(join(tmpdir(), 'php-updates-'));
      redis = redisProcess(await restartablePort());
      await redis.start();
      memcached = memcachedProcess(await restartablePort());
      await memcached.start();
    });
    afterAll(async () => {
      await Promise.all(tables.map((table) => table.drop()));
      await cluster?.stop();
      await redis?.stop();
      await memcached?.stop();
      memcached?.remove();
      await rm(scratch, { recursive: true, force: true });
    });

    /** Each store: its name, whether the service writes the session (activity mode: PHP must see its rewrite at least once), and PHP's ini and the service's PHP_SESSION_* for it. */
    const stores = (serializer: 'php' | 'igbinary'): Setup[] => [
      {
        name: `files (${serializer}), touch expiry`,
        rewrites: false,
        async open() {
          const dir = join(scratch, `files-${serializer}`);
          await mkdir(dir);
          return {
            ini: { 'session.save_handler': 'files', 'session.save_path': dir },
            env: { PHP_SESSION_SAVE_HANDLER: 'files', PHP_SESSION_SAVE_PATH: dir, PHP_SESSION_TOUCH: 'expiry' },
          };
        },
      },
      {
        name: `redis (${serializer}), touch activity`,
        rewrites: true,
        open() {
          const savePath = `tcp://127.0.0.1:${new URL(redis.url).port}?prefix=updates_${serializer}_`;
          return Promise.resolve({
            // phpredis locks only when asked: on, so PHP's own requests do not overwrite each other, with a wait
            // that a loaded machine does not outlast (past it phpredis reads without the lock and skips the write).
            ini: {
              'session.save_handler': 'redis',
              'session.save_path': savePath,
              'redis.session.locking_enabled': '1',
              'redis.session.lock_expire': '30',
              'redis.session.lock_wait_time': '2000',
              'redis.session.lock_retries': '5000',
            },
            env: { PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: savePath, PHP_SESSION_TOUCH: 'activity' },
          });
        },
      },
      {
        name: `memcached (${serializer}), touch activity`,
        rewrites: true,
        open() {
          const prefix = `updates.${serializer}.`;
          return Promise.resolve({
            ini: { 'session.save_handler': 'memcached', 'session.save_path': memcached.address, 'memcached.sess_prefix': prefix },
            env: {
              PHP_SESSION_SAVE_HANDLER: 'memcached',
              PHP_SESSION_SAVE_PATH: memcached.address,
              PHP_SESSION_MEMCACHED_PREFIX: prefix,
              PHP_SESSION_TOUCH: 'activity',
            },
          });
        },
      },
      {
        // A session table on MariaDB (SQLite where there is none), written by pdo-handler.php, which takes no row
        // lock: PHP's requests come one at a time, the service's beside them.
        name: `pdo (${serializer}), touch activity`,
        rewrites: true,
        phpClients: 1,
        async open() {
          const mysql = process.env.TEST_MYSQL_URL;
          const table = await pdoSessionTable(mysql ? 'mysql' : 'sqlite', mysql ?? join(scratch, `sessions-${serializer}.db`));
          tables.push(table);
          return {
            ini: table.phpIni,
            env: {
              PHP_SESSION_SAVE_HANDLER: 'pdo',
              PHP_SESSION_SAVE_PATH: table.savePath,
              PHP_SESSION_PDO_TABLE: table.table,
              PHP_SESSION_TOUCH: 'activity',
            },
          };
        },
      },
      ...(withCluster
        ? [
            {
              name: `rediscluster (${serializer}), touch activity`,
              rewrites: true,
              // phpredis takes no lock for cluster sessions: two PHP requests at once overwrite each other whatever
              // the service does, so PHP's requests come one at a time, the service's beside them.
              phpClients: 1,
              open() {
                const savePath = `${cluster!.seeds}&prefix=updates_${serializer}_&timeout=2`;
                return Promise.resolve({
                  ini: { 'session.save_handler': 'rediscluster', 'session.save_path': savePath },
                  env: { PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: savePath, PHP_SESSION_TOUCH: 'activity' },
                });
              },
            },
          ]
        : []),
    ];

    for (const serializer of ['php', 'igbinary'] as const) {
      for (const setup of stores(serializer)) {
        describe(setup.name, () => {
          let php: PhpServer;
          let svc: TestService;
          beforeAll(async () => {
            const store = await setup.open();
            php = await phpServer({ ...store.ini, 'session.serialize_handler': serializer }, { workers: setup.phpClients ?? PHP_CLIENTS });
            svc = await startService({
              DEV_LOGIN: '',
              SESSION_STORE: 'php',
              PHP_SESSION_SERIALIZE_HANDLER: serializer,
              PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
              PHP_SESSION_IDLE_SECONDS: '1800',
              ...store.env,
            });
          });
          afterAll(async () => {
            await svc?.close();
            await php?.stop();
          });

          it('every counter increment PHP answered is in the session; the service answered signed in throughout', async () => {
            const { cookie } = await php.get('session.php?action=signin&id=41');
            const written: number[] = [];
            const phpFailures: string[] = [];
            let phpSawService = 0;
            let phpDone = false;
            const phpClient = async (requests: number) => {
              for (let i = 0; i < requests; i += 1) {
                const response = await fetch(`${php.base}/counter.php`, {
                  headers: { cookie: cookie! },
                  signal: AbortSignal.timeout(10_000),
                });
                const body = (await response.json()) as { counter?: number; moved?: boolean; error?: string };
                // A request PHP could not run (its lock not had in time) wrote nothing: not an update, not lost.
                if (response.status !== 200) phpFailures.push(`${response.status} ${body.error}`);
                else {
                  written.push(body.counter!);
                  if (body.moved) phpSawService += 1;
                }
              }
            };
            const answers = new Map<string, number>();
            const serviceClient = async () => {
              while (!phpDone) {
                const response = await svc.post(FIELD_PATH, form({ id: '101', field: 'estado', value: 'ok' }), { cookie: cookie! });
                const key = `${response.status} ${await response.text()}`;
                answers.set(key, (answers.get(key) ?? 0) + 1);
              }
            };
            const services = Array.from({ length: SERVICE_CLIENTS }, serviceClient);
            const clients = setup.phpClients ?? PHP_CLIENTS;
            await Promise.all(Array.from({ length: clients }, () => phpClient(PHP_REQUESTS / clients)));
            phpDone = true;
            await Promise.all(services);

            const { body: shown } = await php.get<{ session: { counter: number } }>('session.php?action=show', cookie);
            const lost = written.length - shown.session.counter;
            console.log(
              `[${setup.name}] ${written.length} PHP increments (${phpFailures.length} not run), ${[...answers.values()].reduce((a, b) => a + b, 0)} service requests, ` +
                `PHP saw the service's rewrite ${phpSawService} times; lost updates: ${lost}`,
            );
            expect(lost).toBe(0);
            // Each increment read the one before it: PHP's requests never overwrote each other either.
            expect([...written].sort((a, b) => a - b)).toEqual(Array.from({ length: written.length }, (_, i) => i + 1));
            expect(written.length).toBeGreaterThan(PHP_REQUESTS / 2);
            // Signed in throughout: {"ok":true}, or 503 when PHP's lock was held past the wait (never "No autenticado").
            const outcomes = [...answers.keys()];
            expect(outcomes.filter((outcome) => outcome !== '200 {"ok":true}' && !outcome.startsWith('503 '))).toEqual([]);
            expect(answers.get('200 {"ok":true}') ?? 0).toBeGreaterThan(0);
            if (setup.rewrites) expect(phpSawService).toBeGreaterThan(0);
          }, 120_000);
        });
      }
    }
  },
);
