import type { Cluster, Redis } from 'ioredis';
import { SessionUnavailableError } from '@cotizaciones/core';

/** Resolves once `redis` is connected (a cluster: its slot map fetched), or rejects with SessionUnavailableError after `timeoutMs`. */
export function redisReady(redis: Redis | Cluster, timeoutMs: number): Promise<void> {
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
}
