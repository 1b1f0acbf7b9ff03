import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { redisSessionStore } from '../src/redis.js';
import { deleteRedisKeys, missing, serviceUrls, testSessionStore } from '../src/testing/index.js';

// session-store.contract.test.ts runs the suite against the in-memory store; this file, against Redis.
const urls = serviceUrls();

describe.skipIf(missing('Redis (TEST_REDIS_URL)', urls.redis))('with Redis', () => {
  const url = urls.redis ?? '';
  const prefix = `test:sess:${randomUUID()}:`;
  afterAll(() => deleteRedisKeys(url, prefix));
  testSessionStore(
    'Redis',
    async () => {
      const store = redisSessionStore({ url, prefix });
      await store.ready(2_000);
      return { store, close: () => store.close() };
    },
    { ttl: true },
  );

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
