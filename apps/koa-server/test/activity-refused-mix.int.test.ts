import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTable, missing, oldActivityTableSql, runSql, serviceUrls } from '@cotizaciones/adapters/testing';
import { changeLoad } from './support/change-load.js';
import { deadLetterLines } from './support/dead-letter-lines.js';
import { sample } from './support/prometheus-sample.js';
import { until } from './support/until.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

// A signed-in client whose changes a legacy utf8mb3 table refuses one in four (an emoji in the
// recorded field), mixed into ordinary ones under load, through the real service over HTTP: the
// ordinary entries do not wait behind the refused ones, and each entry ends in exactly one place.

const urls = serviceUrls();
const refused = (n: number) => n % 4 === 0;
// The rule's "within seconds", with room for a busy machine: a writer that splits each refused
// entry down from a full batch is still writing this load long after it ends.
const SECONDS_AFTER_THE_LOAD = 10_000;

describe.skipIf(missing('MySQL/MariaDB (TEST_MYSQL_URL)', urls.mysql))(
  'one change in four refused by a utf8mb3 table, under load (a real MariaDB)',
  () => {
    const mysql = urls.mysql!;
    const table = `activity_log_mix_${randomBytes(4).toString('hex')}`;
    let svc: TestService | undefined;
    afterAll(async () => {
      await svc?.close();
      await dropTable(mysql, table);
    });

    it('every ordinary entry in the table and the oldest-entry gauge at 0 within seconds of the load ending; every refused one set aside; each once', async () => {
      await runSql(mysql, oldActivityTableSql(true, table));
      const service = await startService({ ACTIVITY_LOG_URL: mysql, ACTIVITY_LOG_TABLE: table });
      svc = service;
      const cookie = await service.signIn('7');
      const load = await changeLoad(
        (n) => service.post(FIELD_PATH, form({ id: String(n), field: refused(n) ? 'estado 😀' : 'estado' }), { cookie }),
        { clients: 32, durationMs: 15_000 },
      );
      expect(load.failed).toBe(0);
      const ordinary = load.ok.filter((n) => !refused(n)).sort((a, b) => a - b);
      const setAside = load.ok.filter(refused).sort((a, b) => a - b);
      // Enough of each that refusals keep arriving between ordinary entries the whole time.
      expect(setAside.length).toBeGreaterThan(100);

      const stored = async () => (await service.service.activityStore.recent(1_000_000)).map((row) => Number(row.entity_id));
      const atTheEnd = (await stored()).length;
      const allStored = await until(async () => (await stored()).length >= ordinary.length, SECONDS_AFTER_THE_LOAD);
      const gaugeAtZero = await until(
        async () => sample(await (await fetch(`${service.url}/metrics`)).text(), 'activity_log_oldest_pending_seconds') === 0,
        SECONDS_AFTER_THE_LOAD,
      );
      expect({ ordinary: ordinary.length, atTheEnd, allStored, gaugeAtZero }).toMatchObject({ allStored: true, gaugeAtZero: true });

      await service.service.activityLog.flush();
      expect((await stored()).sort((a, b) => a - b)).toEqual(ordinary);
      const lines = deadLetterLines(service.deadLetterFile);
      expect(lines.map((line) => Number(line.entry.entityId)).sort((a, b) => a - b)).toEqual(setAside);
      expect(service.service.activityLog.stats()).toMatchObject({
        written: ordinary.length,
        deadLettered: setAside.length,
        queued: 0,
        dropped: 0,
      });
    }, 120_000);
  },
);
