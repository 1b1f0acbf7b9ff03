import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { phpSessions } from '../src/php-session.js';
import {
  deleteRedisKeys,
  freePort,
  memcachedProcess,
  missing,
  redisClusterAvailable,
  redisClusterProcess,
  serviceUrls,
  testSession,
  type MemcachedProcess,
  type RedisClusterProcess,
} from '../src/testing/index.js';
import { phpSerialize } from './support/php-serialize.js';

// session.contract.test.ts runs the suite against the in-process adapters; this file, against Redis, a Redis Cluster and memcached.
const IDLE_SECONDS = 1800;

/**
 * The same through phpredis's handler: sign-in writes `<prefix><id>` with SETEX gc_maxlifetime, as
 * PHP does; the service reads it over its own connection.
 */
const redisUrl = serviceUrls().redis;
describe.skipIf(missing('Redis (TEST_REDIS_URL)', redisUrl))('with phpredis', () => {
  const prefix = `test:php-contract:${randomBytes(4).toString('hex')}:`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl ?? '');
  });
  afterAll(async () => {
    redis.disconnect();
    await deleteRedisKeys(redisUrl ?? '', prefix);
  });

  testSession(
    'PHP sessions, phpredis',
    async () => {
      let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
      const { hostname, port } = new URL(redisUrl ?? '');
      const sessions = phpSessions({
        saveHandler: 'redis',
        savePath: `tcp://${hostname}:${port || 6379}?prefix=${encodeURIComponent(prefix)}`,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: IDLE_SECONDS,
        touch: 'none',
        now: () => clock,
      });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const vars = user === undefined ? '' : `user|${phpSerialize(user)}`;
          await redis.setex(`${prefix}${id}`, 1440, `${vars}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [
            `PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`,
            `PHPSESSID=${randomBytes(16).toString('hex')}`,
            `OTHER=${id}`,
          ];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});

/**
 * The same through php-memcached's handler: sign-in sets `memc.sess.key.<id>` with expiry gc_maxlifetime,
 * as PHP does, on a memcached of the suite's own (it fails without one: .ci/run installs it).
 */
describe('with php-memcached', () => {
  let memcached: MemcachedProcess;
  beforeAll(async () => {
    memcached = memcachedProcess(await freePort());
    await memcached.start();
  });
  afterAll(async () => {
    await memcached.stop();
    memcached.remove();
  });

  testSession(
    'PHP sessions, php-memcached',
    async () => {
      let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
      const sessions = phpSessions({
        saveHandler: 'memcached',
        savePath: memcached.address,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: IDLE_SECONDS,
        touch: 'none',
        now: () => clock,
      });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const data = Buffer.from(`${user === undefined ? '' : `user|${phpSerialize(user)}`}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`);
          const reply = await memcached.send(
            Buffer.concat([Buffer.from(`set memc.sess.key.${id} 0 1440 ${data.length}\r\n`), data, Buffer.from('\r\n')]),
          );
          if (reply !== 'STORED\r\n') throw new Error(`memcached answered ${reply}`);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [
            `PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`,
            `PHPSESSID=${randomBytes(16).toString('hex')}`,
            `PHPSESSID=lock.${id}`,
            `OTHER=${id}`,
          ];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});

/**
 * The same through phpredis's cluster handler: sign-in writes `PHPREDIS_CLUSTER_SESSION:<id>` with SETEX
 * gc_maxlifetime on the master of its slot, as PHP does, in a 3-master cluster of the suite's own.
 */
describe.skipIf(missing('redis-server and redis-cli', redisClusterAvailable()))('with phpredis on a Redis Cluster', () => {
  let cluster: RedisClusterProcess;
  let redis: Cluster;
  beforeAll(async () => {
    cluster = await redisClusterProcess({ masters: 3 });
    redis = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  testSession(
    'PHP sessions, phpredis cluster',
    async () => {
      let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
      const sessions = phpSessions({
        saveHandler: 'rediscluster',
        savePath: `${cluster.seeds}&timeout=2`,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: IDLE_SECONDS,
        touch: 'none',
        now: () => clock,
      });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const vars = user === undefined ? '' : `user|${phpSerialize(user)}`;
          await redis.setex(`PHPREDIS_CLUSTER_SESSION:${id}`, 1440, `${vars}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [
            `PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`,
            `PHPSESSID=${randomBytes(16).toString('hex')}`,
            `OTHER=${id}`,
          ];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});
