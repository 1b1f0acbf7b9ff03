import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { redisSessionStore } from '@cotizaciones/adapters/redis';
import { dropTable, missing, serviceUrls } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { startApp } from './support/app.js';
import { FIELD_PATH, ITEM_PATH, form, startService } from './support/service.js';

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
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const store = redisSessionStore({ url: urls.redis ?? '', prefix: 'test:idle:' });
    await store.ready(2_000);
    const app = await startApp({ sessionPolicy: { idleMs: 150_000, maxMs: 3_600_000 } }, { sessions: store });
    const cookie = await app.signIn();
    await expectAnswer(
      await fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } }),
      200,
      '{"ok":true}',
    );
    vi.setSystemTime(Date.now() + 250_000);
    await expectAnswer(
      await fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } }),
      200,
      '{"ok":false,"msg":"No autenticado"}',
    );
    app.close();
    await store.close();
  });
});
