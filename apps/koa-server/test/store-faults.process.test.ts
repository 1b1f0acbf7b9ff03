import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missing, SQLite, startStubUpstream } from '@cotizaciones/adapters/testing';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { expectAnswer } from './support/contract-headers.js';
import { postgresProcess } from './support/postgres-process.js';
import { startProcess } from './support/process.js';
import { until } from './support/until.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form, startService } from './support/service.js';

/** /readyz's detail (hosts, ports, driver messages) is for its holder only. */
const METRICS_TOKEN = 'store-faults-metrics-token';

describe('an upstream that refuses connections', () => {
  it('answers the default message at once, logs no entry, and keeps serving', async () => {
    const svc = await startService({ UPSTREAM_BASE_URL: 'http://127.0.0.1:1' });
    const cookie = await svc.signIn();
    for (let i = 0; i < 3; i += 1) {
      await expectAnswer(
        await svc.post(FIELD_PATH, form({ id: '5' }), { cookie }),
        200,
        '{"ok":false,"msg":"No se pudo actualizar la cotización."}',
      );
    }
    expect(await svc.rows()).toEqual([]);
    expect(svc.logs.lines.filter((line) => line.outcome === 'upstream-failed')).toHaveLength(3);
    expect(await (await fetch(`${svc.url}/healthz`)).text()).toBe('{"ok":true}');
    await svc.close();
  });
});

describe('activity-log store faults', () => {
  it('a SQLite file locked by another process: answers unchanged and prompt, entries written once it is free', async () => {
    const svc = await startService();
    const cookie = await svc.signIn();
    // The store opens in the background: the lock is taken once it has (the fault under test is a lock while running).
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
    const locker = new SQLite(svc.dbFile);
    locker.exec('BEGIN EXCLUSIVE');
    // The service runs in this process: a write waiting for the lock would show as event-loop delay.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const failedWrites = () => svc.logs.lines.filter((line) => line.msg === 'activity log write failed; will retry').length;
    for (let i = 1; i <= 5; i += 1) {
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: String(i), field: 'f' }), { cookie }), 200, '{"ok":true}');
    }
    // Answered while writes wait for the lock: measured until the writer has failed three times.
    expect(await until(() => failedWrites() >= 3, 10_000)).toBe(true);
    loop.disable();
    expect(loop.max / 1e6).toBeLessThan(250);
    locker.exec('COMMIT');
    locker.close();
    expect((await svc.rows()).map((row) => row.entity_id)).toEqual(['1', '2', '3', '4', '5']);
    await svc.close();
  });

  const pg = postgresProcess(5499);
  if (!pg.available) console.warn('\n[store faults] SKIPPING the PostgreSQL restart test: no PostgreSQL server binaries\n');
  it.skipIf(missing('PostgreSQL binaries (initdb)', pg.available))(
    'PostgreSQL stopped and restarted: answers unchanged, the process survives, nothing lost',
    async () => {
      pg.init();
      pg.start();
      const table = `activity_log_fault_${randomBytes(4).toString('hex')}`;
      const svc = await startService({ ACTIVITY_LOG_URL: pg.url, ACTIVITY_LOG_TABLE: table });
      const cookie = await svc.signIn();
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1' }), { cookie }), 200, '{"ok":true}');
      await svc.service.activityLog.flush();

      pg.stop();
      for (const id of ['2', '3', '4']) {
        await expectAnswer(await svc.post(FIELD_PATH, form({ id }), { cookie }), 200, '{"ok":true}');
      }
      expect(await until(() => svc.logs.lines.some((line) => line.msg === 'activity log write failed; will retry'), 5_000)).toBe(true);

      pg.start();
      const reader = await openSqlActivityLogStore(pg.url, { table });
      const written = await until(async () => (await reader.recent(10)).length === 4, 20_000);
      expect((await reader.recent(10)).map((row) => row.entity_id).sort()).toEqual(['1', '2', '3', '4']);
      expect(written).toBe(true);
      await reader.close();
      await svc.close();
      pg.stop();
      pg.remove();
    },
  );

  // A port of its own, away from the restart test's and from other suites' private servers.
  const pgDown = postgresProcess(20_000 + Math.floor(Math.random() * 10_000));
  it.skipIf(missing('PostgreSQL binaries (initdb)', pgDown.available))(
    'PostgreSQL down at start-up: the service starts, /readyz 200 naming the activity log as degraded until a check finds it up, requests answered; entries written once it is up',
    async () => {
      pgDown.init();
      const stub = await startStubUpstream();
      const table = `activity_log_down_${randomBytes(4).toString('hex')}`;
      const deadLetterDir = mkdtempSync(join(tmpdir(), 'dead-letter-'));
      const server = await startProcess({
        ACTIVITY_LOG_URL: pgDown.url,
        ACTIVITY_LOG_TABLE: table,
        ACTIVITY_LOG_DEAD_LETTER: join(deadLetterDir, 'dead.jsonl'),
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: TOKEN,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
        METRICS_TOKEN: METRICS_TOKEN,
      });
      const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
      expect(await (await fetch(`${server.url}/healthz`)).text()).toBe('{"ok":true}');
      // Best effort: still ready, the store named as what the service does without; where it is, only to the token's holder.
      const degraded = await fetch(`${server.url}/readyz`);
      expect(degraded.status).toBe(200);
      expect(await degraded.json()).toEqual({ ok: true, degraded: ['activity log: unavailable'] });
      const detailed = await fetch(`${server.url}/readyz`, { headers: bearer });
      expect(await detailed.json()).toEqual({ ok: true, degraded: [expect.stringMatching(/^activity log: .*ECONNREFUSED/)] });
      const storeUp = async () =>
        /^activity_log_store_up (\d)$/m.exec(await (await fetch(`${server.url}/metrics`, { headers: bearer })).text())?.[1];
      expect(await storeUp()).toBe('0');

      const cookie = cookieHeader(
        await fetch(`${server.url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: '7', name: 'Ana' }) }),
      );
      for (const id of ['1', '2', '3']) {
        await expectAnswer(
          await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id }), headers: { cookie } }),
          200,
          '{"ok":true}',
        );
      }

      pgDown.start();
      try {
        // The background check finds it back, with no request needed.
        expect(await until(async () => (await (await fetch(`${server.url}/readyz`)).text()) === '{"ok":true}', 20_000)).toBe(true);
        expect(await storeUp()).toBe('1');
        const reader = await openSqlActivityLogStore(pgDown.url, { table });
        expect(await until(async () => (await reader.recent(10)).length === 3, 20_000)).toBe(true);
        expect((await reader.recent(10)).map((row) => row.entity_id).sort()).toEqual(['1', '2', '3']);
        await reader.close();
      } finally {
        server.child.kill('SIGTERM');
        await new Promise((resolve) => server.child.once('exit', resolve));
        await stub.close();
        pgDown.stop();
        pgDown.remove();
        rmSync(deadLetterDir, { recursive: true, force: true });
      }
      expect(server.output()).toContain('activity log write failed; will retry');
    },
  );
});
