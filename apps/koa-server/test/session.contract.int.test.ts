import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { redisSessionStore } from '@cotizaciones/adapters/redis';
import { deleteRedisKeys, missing, serviceUrls, testSession } from '@cotizaciones/adapters/testing';
import { CLAIMS, koaHarness, shared } from './support/session-contract-harness.js';

const urls = serviceUrls();
describe.skipIf(missing('Redis (TEST_REDIS_URL)', urls.redis))('with Redis', () => {
  let harness: Awaited<ReturnType<typeof koaHarness>> | undefined;
  let store: ReturnType<typeof redisSessionStore> | undefined;
  const prefix = `test:contract:${randomUUID()}:`;
  beforeAll(async () => {
    store = redisSessionStore({ url: urls.redis ?? '', prefix });
    await store.ready(2_000);
    harness = await koaHarness(store);
  });
  afterAll(async () => {
    harness?.close();
    await store?.close();
    await deleteRedisKeys(urls.redis ?? '', prefix);
  });
  testSession('koa-session, Redis store', () => Promise.resolve(shared(harness!)), CLAIMS);
});
