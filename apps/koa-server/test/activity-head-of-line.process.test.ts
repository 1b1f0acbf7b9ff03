import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTable, missing, oldActivityTableSql, runSql, serviceUrls } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { until } from './support/until.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

const urls = serviceUrls();

describe.skipIf(missing('MySQL/MariaDB (TEST_MYSQL_URL)', urls.mysql))('one entry never blocks the others (a real MariaDB)', () => {
  const mysql = urls.mysql!;
  const table = `activity_log_hol_${randomBytes(4).toString('hex')}`;
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.close();
    await dropTable(mysql, table);
  });

  it('an existing utf8mb3 table, 60 entries of ~900 KB it refuses, then 20 ordinary ones: the 20 written, the 60 set aside', async () => {
    await runSql(mysql, oldActivityTableSql(true, table));
    svc = await startService({ ACTIVITY_LOG_URL: mysql, ACTIVITY_LOG_TABLE: table, BODY_LIMIT_BYTES: String(4 * 1024 * 1024) });
    const cookie = await svc.signIn('7');
    // ~900 KB of UTF-8 in the recorded field, an emoji utf8mb3 cannot store at its end: 60 of them are some 54 MB, past max_allowed_packet.
    const huge = `${'é'.repeat(450_000)}😀`;
    for (let id = 1; id <= 60; id += 1) {
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: String(id), field: huge }), { cookie }), 200, '{"ok":true}');
    }
    for (let id = 101; id <= 120; id += 1) {
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: String(id), field: 'estado' }), { cookie }), 200, '{"ok":true}');
    }
    const store = svc.service.activityStore;
    expect(await until(async () => (await store.recent(100)).length === 20, 60_000)).toBe(true);
    expect((await store.recent(100)).map((row) => Number(row.entity_id)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 101),
    );
    await svc.service.activityLog.flush();
    const setAside = readFileSync(svc.deadLetterFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { entry: { entityId: string } });
    expect(setAside.map((line) => Number(line.entry.entityId)).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(svc.service.activityLog.stats()).toMatchObject({ written: 20, deadLettered: 60, queued: 0 });
    // Above the wait's own bound: a slow machine fails by the count it waited for, not by the test's time.
  }, 90_000);
});
