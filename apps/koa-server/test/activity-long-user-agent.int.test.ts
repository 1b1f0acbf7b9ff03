import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dropTable, missing, oldActivityTableSql, runSql, serviceUrls } from '@cotizaciones/adapters/testing';
import { changeLoad } from './support/change-load.js';
import { deadLetterLines } from './support/dead-letter-lines.js';
import { until } from './support/until.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

// A signed-in client sending a 300-character User-Agent, beside other users, into a legacy table
// whose user_agent column is VARCHAR(255), through the real service over HTTP: the header's value
// is cut to the column with the contract's marker, never refused, and no one else's entry waits.

const urls = serviceUrls();
const LONG_UA = `Mozilla/5.0 ${'x'.repeat(288)}`;
const MARKER = '…[cut: 300 bytes]';
const OTHERS = ['8', '9', '10'];
// Far from what the writer takes, and short of what refusing each of the long agent's entries costs.
const SECONDS_AFTER_THE_LOAD = 10_000;

const engines = [
  { name: 'PostgreSQL', url: urls.postgres, mysql: false },
  { name: 'MySQL/MariaDB', url: urls.mysql, mysql: true },
] as const;

for (const { name, url, mysql } of engines) {
  describe.skipIf(missing(name, url))(`a 300-character User-Agent against a VARCHAR(255) user_agent column (${name})`, () => {
    const target = url ?? '';
    const table = `activity_log_ua_${randomBytes(4).toString('hex')}`;
    let svc: TestService | undefined;
    afterEach(async () => {
      await svc?.close();
      svc = undefined;
      await dropTable(target, table);
    });

    it("every entry stored, the long agent's cut to 255 with the marker; the other users' all written; nothing set aside", async () => {
      await runSql(target, oldActivityTableSql(mysql, table));
      await runSql(
        target,
        mysql
          ? `ALTER TABLE ${table} MODIFY user_agent VARCHAR(255) NULL`
          : `ALTER TABLE ${table} ALTER COLUMN user_agent TYPE VARCHAR(255)`,
      );
      const service = await startService({ ACTIVITY_LOG_URL: target, ACTIVITY_LOG_TABLE: table });
      svc = service;
      const users = ['7', ...OTHERS];
      const cookies = await Promise.all(users.map((user) => service.signIn(user)));
      // Change n comes from user n mod 4: user 7 (the long agent) sends one change in four.
      const load = await changeLoad(
        (n) =>
          service.post(FIELD_PATH, form({ id: String(n), field: 'estado' }), {
            cookie: cookies[n % 4]!,
            headers: { 'user-agent': n % 4 === 0 ? LONG_UA : 'curl/8.5.0' },
          }),
        { clients: 16, durationMs: 6_000 },
      );
      expect(load.failed).toBe(0);
      const longAgents = load.ok.filter((n) => n % 4 === 0).sort((a, b) => a - b);
      const others = load.ok.filter((n) => n % 4 !== 0).sort((a, b) => a - b);
      expect(longAgents.length).toBeGreaterThan(50);

      const rows = async () => service.service.activityStore.recent(1_000_000);
      const atTheEnd = (await rows()).filter((row) => row.user_id !== '7').length;
      const allStored = await until(async () => (await rows()).length >= load.ok.length, SECONDS_AFTER_THE_LOAD);
      expect({ others: others.length, atTheEnd, allStored }).toMatchObject({ allStored: true });

      await service.service.activityLog.flush();
      const stored = await rows();
      const byUser = (own: boolean) =>
        stored
          .filter((row) => (row.user_id === '7') === own)
          .map((row) => Number(row.entity_id))
          .sort((a, b) => a - b);
      expect(byUser(true)).toEqual(longAgents);
      expect(byUser(false)).toEqual(others);
      const cut = `${LONG_UA.slice(0, 255 - MARKER.length)}${MARKER}`;
      expect(new Set(stored.filter((row) => row.user_id === '7').map((row) => row.user_agent))).toEqual(new Set([cut]));
      expect(cut).toHaveLength(255);
      expect(new Set(stored.filter((row) => row.user_id !== '7').map((row) => row.user_agent))).toEqual(new Set(['curl/8.5.0']));
      expect(deadLetterLines(service.deadLetterFile)).toEqual([]);
      expect(service.service.activityLog.stats()).toMatchObject({ written: load.ok.length, deadLettered: 0, queued: 0, dropped: 0 });
    }, 120_000);
  });
}
