import { Redis } from 'ioredis';
import { SessionUnavailableError } from '@cotizaciones/core';
import type { SessionStore } from './session-store.js';

const ONE_DAY_MS = 86_400_000;

export interface RedisSessionStoreOptions {
  readonly url: string;
  /** Prepended to every key, so several apps can share one Redis. */
  readonly prefix?: string;
  /** A command that takes longer fails: the request answers 503 instead of hanging. */
  readonly commandTimeoutMs?: number;
  /** Told when the connection fails (throttled by ioredis's reconnect backoff). */
  readonly onConnectionError?: (error: Error) => void;
}

export interface RedisSessionStore extends SessionStore {
  /** Resolves once connected, or rejects after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>;
  /** Resolves when Redis answers a PING (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sessions in Redis, as JSON with a TTL equal to the session's lifetime. While
 * Redis is unreachable commands fail at once (no offline queue) and ioredis
 * keeps reconnecting, so the service recovers by itself.
 */
export function redisSessionStore(options: RedisSessionStoreOptions): RedisSessionStore {
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
    async get(key) {
      const json = await call(() => redis.get(prefix + key));
      return json === null ? undefined : (JSON.parse(json) as unknown);
    },
    async set(key, session, maxAge) {
      // koa-session passes 'session' for browser-session cookies: keep those a day, as koa-session itself does.
      const ttl = typeof maxAge === 'number' ? Math.max(1, Math.round(maxAge)) : ONE_DAY_MS;
      await call(() => redis.set(prefix + key, JSON.stringify(session), 'PX', ttl));
    },
    async destroy(key) {
      await call(() => redis.del(prefix + key));
    },
    async ping() {
      await call(() => redis.ping());
    },
    ready(timeoutMs) {
      if (redis.status === 'ready') return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          redis.off('ready', onReady);
          reject(new SessionUnavailableError(`Redis not ready after ${timeoutMs} ms`));
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve();
        };
        redis.once('ready', onReady);
      });
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
