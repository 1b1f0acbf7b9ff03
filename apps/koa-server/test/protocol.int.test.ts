import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { redisSessionStore } from '@cotizaciones/adapters/redis';
import { deleteRedisKeys, dropTable, missing, serviceUrls } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { expectIdleSessionAbsent } from './support/idle-session.js';
import { ITEM_PATH, form, startService } from './support/service.js';

const urls = serviceUrls();

// protocol.http.test.ts's cases that need a real database or Redis.
describe.each([
  ['mysql://… (MariaDB)', 'MySQL/MariaDB (TEST_MYSQL_URL)', urls.mysql],
  ['postgres://…', 'PostgreSQL (TEST_POSTGRES_URL)', urls.postgres],
] as const)('ACTIVITY_LOG_URL=%s', (_, service, target) => {
  it.skipIf(missing(service, target))('the service writes its rows there', async () => {
    const table = `activity_log_url_${Math.random().toString(36).slice(2, 10)}`;
    const svc = await startService({ ACTIVITY_LOG_URL: target ?? '', ACTIVITY_LOG_TABLE: table });
    onTestFinished(() => dropTable(target ?? '', table));
    const cookie = await svc.signIn('55');
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '77', delete: '' }), { cookie }), 200, '{"ok":true}');
    expect(await svc.rows()).toEqual([
      expect.objectContaining({ event_key: 'cotizaciones.item_delete', entity_id: '77', user_id: '55', details: null }),
    ]);
    await svc.close();
  });
});

describe('session control with sessions in Redis', () => {
  it.skipIf(missing('Redis (TEST_REDIS_URL)', urls.redis))('applies the idle timeout to sessions held in Redis too', async () => {
    const prefix = `test:idle:${randomUUID()}:`;
    const store = redisSessionStore({ url: urls.redis ?? '', prefix });
    onTestFinished(async () => {
      await store.close();
      await deleteRedisKeys(urls.redis ?? '', prefix);
    });
    await store.ready(2_000);
    await expectIdleSessionAbsent(store);
  });
});
