import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore, type SqlActivityLogStore } from '@cotizaciones/adapters/sql';
import {
  deleteRedisKeys,
  dropTable,
  missing,
  serviceUrls,
  startStubUpstream,
  type StubUpstreamServer,
} from '@cotizaciones/adapters/testing';
import { startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, form, SESSION_KEY } from './support/service.js';
import { until } from './support/until.js';

const urls = serviceUrls();

/** Two server processes sharing Redis sessions and a PostgreSQL activity log, as behind a load balancer. */
describe.skipIf(missing('Redis (TEST_REDIS_URL)', urls.redis) || missing('PostgreSQL (TEST_POSTGRES_URL)', urls.postgres))(
  'scale-out: two instances, Redis and PostgreSQL',
  () => {
    const table = `activity_log_scale_${randomBytes(4).toString('hex')}`;
    let stub: StubUpstreamServer;
    let store: SqlActivityLogStore;
    let env: Record<string, string>;
    beforeAll(async () => {
      stub = await startStubUpstream();
      env = {
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: 't',
        SESSION_KEYS: SESSION_KEY,
        SESSION_STORE: 'redis',
        REDIS_URL: urls.redis ?? '',
        REDIS_KEY_PREFIX: `scale-${table}:`,
        ACTIVITY_LOG_URL: urls.postgres ?? '',
        ACTIVITY_LOG_TABLE: table,
        DEV_LOGIN: '1',
      };
      store = await openSqlActivityLogStore(urls.postgres ?? '', { table });
    });
    afterAll(async () => {
      await store.close();
      await dropTable(urls.postgres ?? '', table);
      await deleteRedisKeys(urls.redis ?? '', `scale-${table}:`);
      await stub.close();
    });

    it('signs in on one, updates on the other, signs out everywhere; both write to the one table', async () => {
      const a = await startProcess(env);
      const b = await startProcess(env);
      const cookie = cookieHeader(await fetch(`${a.url}/dev/login`, { method: 'POST', body: form({ id: '101' }) }));
      const post = (url: string, id: string) =>
        fetch(`${url}${FIELD_PATH}`, { method: 'POST', body: form({ id, field: 'estado' }), headers: { cookie } }).then((r) => r.text());
      expect(await post(b.url, '1')).toBe('{"ok":true}');
      expect(await post(a.url, '2')).toBe('{"ok":true}');
      await fetch(`${a.url}/dev/logout`, { method: 'POST', headers: { cookie } });
      expect(await post(b.url, '3')).toBe('{"ok":false,"msg":"No autenticado"}');

      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([once(a.child, 'exit'), once(b.child, 'exit')]);
      const rows = await store.recent(100);
      expect(rows.map((row) => [row.entity_id, row.user_id]).sort()).toEqual([
        ['1', '101'],
        ['2', '101'],
      ]);
    });

    it('loses no row of a completed request when one instance gets SIGTERM under load', async () => {
      const a = await startProcess(env);
      const cookie = cookieHeader(await fetch(`${a.url}/dev/login`, { method: 'POST', body: form({ id: '202' }) }));
      stub.answer({ json: { ok: true }, delayMs: 50 });
      const before = stub.received.length;
      const outcomes: Array<Promise<string>> = [];
      for (let i = 0; i < 200; i += 1) {
        outcomes.push(
          fetch(`${a.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(10_000 + i) }), headers: { cookie } })
            .then((r) => r.text())
            .catch(() => 'refused'),
        );
      }
      expect(await until(() => stub.received.length - before >= 50, 10_000)).toBe(true);
      a.child.kill('SIGTERM');
      const answers = await Promise.all(outcomes);
      const [code] = (await once(a.child, 'exit')) as [number];
      expect(code).toBe(0);
      const succeeded = answers.map((answer, i) => (answer === '{"ok":true}' ? String(10_000 + i) : undefined)).filter(Boolean);
      expect(succeeded.length).toBeGreaterThanOrEqual(50);
      expect(answers.every((answer) => answer === '{"ok":true}' || answer === 'refused')).toBe(true);
      const logged = (await store.recent(1000)).filter((row) => row.user_id === '202').map((row) => row.entity_id);
      expect(logged.sort()).toEqual([...succeeded].sort());
    });
  },
);
