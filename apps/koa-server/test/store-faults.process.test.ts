import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { expectAnswer } from './support/contract-headers.js';
import { postgresProcess } from './support/postgres-process.js';
import { FIELD_PATH, form, startService } from './support/service.js';

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('an upstream that refuses connections', () => {
  it('answers the default message at once, logs no entry, and keeps serving', async () => {
    const svc = await startService({ UPSTREAM_BASE_URL: 'http://127.0.0.1:1' });
    const cookie = await svc.signIn();
    for (let i = 0; i < 3; i += 1) {
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '5' }), { cookie }), 200, '{"ok":false,"msg":"No se pudo actualizar la cotización."}');
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
    const locker = new SQLite(svc.dbFile);
    locker.exec('BEGIN EXCLUSIVE');
    // The service runs in this process: a write waiting for the lock would show as event-loop delay.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    for (let i = 1; i <= 5; i += 1) {
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: String(i), field: 'f' }), { cookie }), 200, '{"ok":true}');
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    loop.disable();
    expect(loop.max / 1e6).toBeLessThan(250);
    expect(svc.logs.lines.some((line) => line.msg === 'activity log write failed; will retry')).toBe(true);
    locker.exec('COMMIT');
    locker.close();
    expect((await svc.rows()).map((row) => row.entity_id)).toEqual(['1', '2', '3', '4', '5']);
    await svc.close();
  });

  const pg = postgresProcess(5499);
  if (!pg.available) console.warn('\n[store faults] SKIPPING the PostgreSQL restart test: no PostgreSQL server binaries\n');
  it.skipIf(!pg.available)('PostgreSQL stopped and restarted: answers unchanged, the process survives, nothing lost', async () => {
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
    expect(await until(() => Promise.resolve(svc.logs.lines.some((line) => line.msg === 'activity log write failed; will retry')), 5_000)).toBe(true);

    pg.start();
    const reader = await openSqlActivityLogStore(pg.url, { table });
    const written = await until(async () => (await reader.recent(10)).length === 4, 20_000);
    expect((await reader.recent(10)).map((row) => row.entity_id).sort()).toEqual(['1', '2', '3', '4']);
    expect(written).toBe(true);
    await reader.close();
    await svc.close();
    pg.stop();
  });
});
