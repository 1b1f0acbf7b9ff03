import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { inMemorySessionStore } from '../src/index.js';
import { redisSessionStore } from '../src/redis.js';
import { deleteRedisKeys, serviceUrls, testSessionStore } from '../src/testing/index.js';

const urls = serviceUrls();

testSessionStore('in-memory', () => Promise.resolve({ store: inMemorySessionStore(), close: () => Promise.resolve() }), { ttl: true });

describe.skipIf(!urls.redis)('with Redis', () => {
  const url = urls.redis ?? '';
  const prefix = `test:sess:${randomUUID()}:`;
  afterAll(() => deleteRedisKeys(url, prefix));
  testSessionStore('Redis', async () => {
    const store = redisSessionStore({ url, prefix });
    await store.ready(2_000);
    return { store, close: () => store.close() };
  }, { ttl: true });

  describe('Redis session store', () => {
    it('keeps keys under its prefix with the TTL it is given', async () => {
      const store = redisSessionStore({ url, prefix: `${prefix}ttl:` });
      await store.ready(2_000);
      await store.set('abc', { user: { id: '1' } }, 60_000);
      const { Redis } = await import('ioredis');
      const raw = new Redis(url);
      const ttl = await raw.pttl(`${prefix}ttl:abc`);
      expect(ttl).toBeGreaterThan(59_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await raw.quit();
      await store.destroy('abc');
      await store.close();
    });
  });
});

describe('Redis session store, unreachable', () => {
  it('fails at once with SessionUnavailableError instead of queueing', async () => {
    // A command queued until its time limit would take 10 s; refused at once, it takes milliseconds (5 s bounds a busy machine).
    const store = redisSessionStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 10_000 });
    const started = Date.now();
    await expect(store.get('k')).rejects.toBeInstanceOf(SessionUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await store.close();
  });
});
