import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
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
import { PHP_SESSION_CLAIMS as CLAIMS, phpSessionHarness } from './support/php-session-harness.js';

// session.contract.test.ts runs the suite against the in-process adapters; this file, against Redis, a Redis Cluster and memcached.
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
    () => {
      const { hostname, port } = new URL(redisUrl ?? '');
      return phpSessionHarness(
        { saveHandler: 'redis', savePath: `tcp://${hostname}:${port || 6379}?prefix=${encodeURIComponent(prefix)}` },
        async (id, data) => void (await redis.setex(`${prefix}${id}`, 1440, data)),
      );
    },
    CLAIMS,
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
    () =>
      phpSessionHarness(
        { saveHandler: 'memcached', savePath: memcached.address },
        async (id, text) => {
          const data = Buffer.from(text);
          const reply = await memcached.send(
            Buffer.concat([Buffer.from(`set memc.sess.key.${id} 0 1440 ${data.length}\r\n`), data, Buffer.from('\r\n')]),
          );
          if (reply !== 'STORED\r\n') throw new Error(`memcached answered ${reply}`);
        },
        { forgeries: (id) => [`PHPSESSID=lock.${id}`] },
      ),
    CLAIMS,
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
    () =>
      phpSessionHarness(
        { saveHandler: 'rediscluster', savePath: `${cluster.seeds}&timeout=2` },
        async (id, data) => void (await redis.setex(`PHPREDIS_CLUSTER_SESSION:${id}`, 1440, data)),
      ),
    CLAIMS,
  );
});
