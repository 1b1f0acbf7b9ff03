import { createHash } from 'node:crypto';
import { Cluster } from 'ioredis';
import { SessionUnavailableError } from '@cotizaciones/core';
import { redisReady } from '../session/redis-ready.js';
import { BOUNDED_GET } from './php-redis-store.js';
import type { RedisClusterSavePath } from './save-path.js';
import { expiryDue, storedRedisValue, type BoundedReply, type PhpSaveHandlerStore, type RewriteResult } from './save-handler-store.js';

export interface RedisClusterStoreOptions extends RedisClusterSavePath {
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  readonly now: () => number;
  /** The bound of one store call, redirections and retries included. */
  readonly commandTimeoutMs?: number;
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * Replaces the value only if it is still the one read (by its SHA-1), keeping PHP's expiry rule (EX
 * gc_maxlifetime); never recreates a destroyed session. One script on the node that serves the key's slot:
 * atomic there, as WATCH/MULTI/EXEC is on one server, without tying a connection to one request.
 * 1 written, 0 absent, -1 changed meanwhile.
 */
const COMPARE_AND_SET = `local value = redis.call('GET', KEYS[1])
if not value then return 0 end
if redis.sha1hex(value) ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;

type ClusterWithScripts = Cluster & {
  boundedGetBuffer(key: string, max: number): Promise<BoundedReply>;
  compareAndSet(key: string, sha1: string, value: Buffer, seconds: number): Promise<number>;
};

/**
 * phpredis's `rediscluster` session handler: `<prefix><id>` (default prefix `PHPREDIS_CLUSTER_SESSION:`),
 * written by PHP with SETEX gc_maxlifetime on the master serving the key's slot (phpredis takes no lock
 * for cluster sessions). Read through ioredis's Cluster, which follows MOVED and ASK while slots move and
 * refreshes its slot map after a failover. Every call is bounded as a whole (redirections, CLUSTERDOWN
 * retries): past it, or on any error, SessionUnavailableError (503).
 */
export function phpRedisClusterStore(options: RedisClusterStoreOptions): PhpSaveHandlerStore {
  const timeoutMs = options.commandTimeoutMs ?? 2_000;
  const cluster = new Cluster(
    options.seeds.map(({ host, port }) => ({ host, port })),
    {
      redisOptions: {
        ...(options.username === undefined ? {} : { username: options.username }),
        ...(options.password === undefined ? {} : { password: options.password }),
        maxRetriesPerRequest: 0,
        commandTimeout: timeoutMs,
        connectTimeout: timeoutMs,
      },
      // A read while the slot map is being fetched fails at once (503) rather than queueing without bound.
      enableOfflineQueue: false,
      // PHP writes to masters: a replica may lag behind a sign-out.
      scaleReads: 'master',
      clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
      slotsRefreshTimeout: timeoutMs,
      retryDelayOnClusterDown: 100,
      retryDelayOnFailover: 100,
      retryDelayOnTryAgain: 100,
    },
  ) as ClusterWithScripts;
  cluster.defineCommand('boundedGet', { numberOfKeys: 1, lua: BOUNDED_GET });
  cluster.defineCommand('compareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  cluster.on('error', (error: Error) => options.onConnectionError?.(error));
  cluster.on('node error', (error: Error) => options.onConnectionError?.(error));
  const keyOf = (id: string) => options.prefix + id;

  async function call<T>(command: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([command(), late]);
    } catch (error) {
      throw new SessionUnavailableError('the PHP session store (Redis Cluster) is unreachable', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async function rewrite(id: string, change: (bytes: Uint8Array) => Uint8Array | undefined): Promise<RewriteResult> {
    const key = keyOf(id);
    const stored = await cluster.boundedGetBuffer(key, options.maxBytes);
    if (stored === null) return 'absent';
    if (typeof stored === 'number') return 'unchanged';
    const next = change(stored[0]);
    if (next === undefined) return 'unchanged';
    const read = createHash('sha1').update(stored[0]).digest('hex');
    const reply = await cluster.compareAndSet(key, read, Buffer.from(next), options.gcMaxLifetimeSeconds);
    return reply === 1 ? 'written' : reply === 0 ? 'absent' : 'yielded';
  }

  return {
    async read(id) {
      const reply = await call(() => cluster.boundedGetBuffer(keyOf(id), options.maxBytes));
      return storedRedisValue(reply, options.now(), options.gcMaxLifetimeSeconds);
    },
    async touchExpiry(id, modifiedMs) {
      if (!expiryDue(modifiedMs, options.now(), options.gcMaxLifetimeSeconds)) return;
      await call(() => cluster.expire(keyOf(id), options.gcMaxLifetimeSeconds));
    },
    rewrite: (id, change) => call(() => rewrite(id, change)),
    async ping() {
      await call(async () => {
        // Every slot has a master this client is connected to (a master that went away leaves its slots
        // without one until a replica takes over: the slot map is then fetched again), and every master
        // sees the cluster whole.
        const masters = cluster.nodes('master');
        const connected = new Set(masters.map((node) => `${node.options.host}:${node.options.port}`));
        if (masters.length === 0 || cluster.slots.some((nodes) => !connected.has(nodes[0] ?? ''))) {
          cluster.refreshSlotsCache();
          throw new Error('a slot has no reachable master');
        }
        const infos = await Promise.all(masters.map((node) => node.cluster('INFO')));
        if (!infos.every((info) => info.includes('cluster_state:ok'))) throw new Error('cluster_state is not ok');
      });
    },
    ready: (timeoutMs) => redisReady(cluster, timeoutMs),
    describe() {
      return `rediscluster seeded by ${options.seeds.map(({ host, port }) => `${host}:${port}`).join(', ')}, keys "${options.prefix}<id>"`;
    },
    async close() {
      await cluster.quit().catch(() => cluster.disconnect());
    },
  };
}
