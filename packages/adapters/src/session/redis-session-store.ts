import { Redis } from 'ioredis';
import { SessionUnavailableError } from '@cotizaciones/core';
import { redisReady } from './redis-ready.js';
import type { RecordSessionStore } from './session-store.js';

export interface RedisSessionStoreOptions {
  readonly url: string;
  /** Prepended to every key, so several apps can share one Redis. */
  readonly prefix?: string;
  /** A command that takes longer fails: the request answers 503 instead of hanging. */
  readonly commandTimeoutMs?: number;
  /** Told when the connection fails (throttled by ioredis's reconnect backoff). */
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * Session records in Redis, as JSON with the TTL they are set with. While
 * Redis is unreachable commands fail at once (no offline queue) and ioredis
 * keeps reconnecting, so the service recovers by itself.
 */
export function redisSessionStore(options: RedisSessionStoreOptions): RecordSessionStore {
  const prefix = options.prefix ?? 'cotizaciones:sess:';
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  redis.on('error', (error: Error) => options.onConnectionError?.(error));

  async function call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new SessionUnavailableError('the session store (Redis) is unreachable', { cause: error });
    }
  }

  return {
    kind: 'records',
    async get(id) {
      const json = await call(() => redis.get(prefix + id));
      return json === null ? undefined : (JSON.parse(json) as unknown);
    },
    async set(id, record, ttlMs) {
      await call(() => redis.set(prefix + id, JSON.stringify(record), 'PX', Math.max(1, Math.round(ttlMs))));
    },
    async destroy(id) {
      await call(() => redis.del(prefix + id));
    },
    async ping() {
      await call(() => redis.ping());
    },
    ready: (timeoutMs) => redisReady(redis, timeoutMs),
    describe: () => `Redis at ${redisAddress(options.url)}, keys "${prefix}<id>"`,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** host:port of a redis:// URL: never its user name or password. */
function redisAddress(url: string): string {
  return URL.canParse(url) ? new URL(url).host : 'an unreadable URL';
}
