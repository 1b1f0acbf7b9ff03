import { Redis } from 'ioredis';
import { SessionUnavailableError } from '@cotizaciones/core';
import { redisReady } from '../session/redis-ready.js';
import type { RedisSavePath } from './save-path.js';
import { expiryDue, storedRedisValue, type BoundedReply, type PhpSaveHandlerStore, type RewriteResult } from './save-handler-store.js';

export interface RedisStoreOptions extends RedisSavePath {
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  readonly now: () => number;
  readonly commandTimeoutMs?: number;
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * phpredis's session handler: `<prefix><id>` (default prefix
 * `PHPREDIS_SESSION:`), written by PHP with SETEX gc_maxlifetime. Commands fail
 * at once while Redis is unreachable (no offline queue) and ioredis keeps
 * reconnecting, so the service answers 503 and recovers by itself.
 */
export function phpRedisStore(options: RedisStoreOptions): PhpSaveHandlerStore {
  const connection = {
    ...(options.socket === undefined ? { host: options.host ?? '127.0.0.1', port: options.port ?? 6379 } : { path: options.socket }),
    db: options.database,
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
  };
  const redis = withBoundedGet(new Redis(connection));
  redis.on('error', (error: Error) => options.onConnectionError?.(error));
  // WATCH belongs to a connection: transactions get their own, one at a time, so two requests never share a WATCH.
  let transactions: BoundedRedis | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const keyOf = (id: string) => options.prefix + id;

  async function call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new SessionUnavailableError('the PHP session store (Redis) is unreachable', { cause: error });
    }
  }

  async function transaction(id: string, change: (bytes: Uint8Array) => Uint8Array | undefined): Promise<RewriteResult> {
    if (!transactions) {
      transactions = withBoundedGet(new Redis({ ...connection, enableOfflineQueue: true }));
      transactions.on('error', () => undefined);
    }
    const tx = transactions;
    const key = keyOf(id);
    await tx.watch(key);
    try {
      const stored = await tx.boundedGetBuffer(key, options.maxBytes);
      if (stored === null) return 'absent';
      if (typeof stored === 'number') return 'unchanged';
      const next = change(stored[0]);
      if (next === undefined) return 'unchanged';
      // SET … XX never recreates a session PHP destroyed meanwhile; EX is what PHP's own write would set.
      const result = await tx.multi().set(key, Buffer.from(next), 'EX', options.gcMaxLifetimeSeconds, 'XX').exec();
      if (result === null) return 'yielded';
      const [error, reply] = result[0] ?? [null, null];
      if (error) throw error;
      return reply === null ? 'absent' : 'written';
    } finally {
      await tx.unwatch().catch(() => undefined);
    }
  }

  const where = options.socket ?? `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
  return {
    async read(id) {
      const reply = await call(() => redis.boundedGetBuffer(keyOf(id), options.maxBytes));
      return storedRedisValue(reply, options.now(), options.gcMaxLifetimeSeconds);
    },
    async touchExpiry(id, modifiedMs) {
      if (!expiryDue(modifiedMs, options.now(), options.gcMaxLifetimeSeconds)) return;
      await call(() => redis.expire(keyOf(id), options.gcMaxLifetimeSeconds));
    },
    rewrite(id, change) {
      const run = queue.then(() => call(() => transaction(id, change)));
      queue = run.catch(() => undefined);
      return run;
    },
    async ping() {
      await call(() => redis.ping());
    },
    ready: (timeoutMs) => redisReady(redis, timeoutMs),
    describe() {
      return `redis at ${where}, database ${options.database}, keys "${options.prefix}<id>"`;
    },
    async close() {
      const quit = async (client: BoundedRedis | undefined) => {
        await client?.quit().catch(() => client.disconnect());
      };
      await Promise.all([quit(redis), quit(transactions)]);
    },
  };
}

/**
 * GET that transfers nothing larger than `max` bytes: the length is checked, then the value read, in one
 * atomic script (STRLEN then GET as two commands would race a value growing between them). An oversized
 * value answers its length instead, so no reply can hold the connection every other read shares. A
 * value comes with its time to live in ms (PTTL), so a fresh expiry need not be moved again.
 */
export const BOUNDED_GET = `local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return n end
local value = redis.call('GET', KEYS[1])
if not value then return nil end
return {value, redis.call('PTTL', KEYS[1])}`;

type BoundedRedis = Redis & { boundedGetBuffer(key: string, max: number): Promise<BoundedReply> };

function withBoundedGet(redis: Redis): BoundedRedis {
  redis.defineCommand('boundedGet', { numberOfKeys: 1, lua: BOUNDED_GET });
  return redis as BoundedRedis;
}
