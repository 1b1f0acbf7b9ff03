import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { isRefusal } from '../src/index.js';
import { openSqlActivityLogStore, type SqlActivityLogStore } from '../src/sql.js';
import { dropTable, missing, oldActivityTableSql, runSql, sampleEntry, serviceUrls } from '../src/testing/index.js';

// The table's column limits read at connect, on the real PostgreSQL and MariaDB: an entry that
// cannot fit is known in memory (refusalOf), and the database agrees with every verdict.

const urls = serviceUrls();

const engines = [
  { name: 'PostgreSQL', url: urls.postgres, mysql: false },
  { name: 'MySQL/MariaDB', url: urls.mysql, mysql: true },
] as const;

const entry = (n: number, overrides: Partial<ActivityEntry> = {}) =>
  sampleEntry({ entityId: BigInt(n), requestId: `req-${n}`, ...overrides });

/** What the database itself answers when `entry` is written alone. */
async function databaseRefuses(store: SqlActivityLogStore, refused: ActivityEntry): Promise<boolean> {
  try {
    await store.write([refused]);
    return false;
  } catch (error) {
    if (isRefusal(error)) return true;
    throw error;
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const { name, url, mysql } of engines) {
  describe.skipIf(missing(name, url))(`the activity table's limits on ${name}`, () => {
    const target = url ?? '';
    const cleanup: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    const modify = (table: string, column: string, type: string) =>
      runSql(target, mysql ? `ALTER TABLE ${table} MODIFY ${column} ${type}` : `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type}`);

    /** A table of the old schema (utf8mb3 on MariaDB), with `changes` applied, and a store opened on it. */
    async function legacyTable(changes: Record<string, string> = {}, limitsMaxAgeMs?: number) {
      const table = `activity_log_l${randomBytes(4).toString('hex')}`;
      cleanup.push(() => dropTable(target, table));
      await runSql(target, oldActivityTableSql(mysql, table));
      for (const [column, type] of Object.entries(changes)) await modify(table, column, type);
      const store = await openSqlActivityLogStore(target, { table, limitsMaxAgeMs });
      cleanup.push(() => store.close());
      return { store, table };
    }

    it('a 300-character user agent into a VARCHAR(255) column: stored, cut to 255 characters with the marker', async () => {
      const { store } = await legacyTable({ user_agent: 'VARCHAR(255)' });
      const long = entry(1, { userAgent: `Mozilla/5.0 ${'x'.repeat(288)}` });
      expect(store.refusalOf?.(long)).toBeUndefined();

      await store.write([long, entry(2)]);

      const [second, first] = await store.recent(2);
      expect(first?.user_agent).toHaveLength(255);
      expect(first?.user_agent).toMatch(/^Mozilla\/5\.0 x+…\[cut: 300 bytes\]$/);
      expect(second?.user_agent).toBe('vitest');
    });

    it('an entry the table cannot hold is refused in memory, naming the column, never the value; the database agrees', async () => {
      const { store } = await legacyTable();
      const fitting = [entry(1), entry(2, { description: 'Actualizó ñandú €' }), entry(3, { userId: 'u'.repeat(64) })];
      const unfit: Array<readonly [ActivityEntry, RegExp]> = [
        [entry(4, { userId: 'u'.repeat(100) }), /^column user_id \(.*\): too long: 100 > 64 characters$/],
        [entry(5, { entityType: 'e'.repeat(65) }), /^column entity_type \(.*\): too long: 65 > 64 characters$/],
        ...(mysql
          ? ([
              // utf8mb3 stores no 4-byte character; TEXT holds 65 535 bytes.
              [
                entry(6, { details: { field: 'estado 😀' } }),
                /^column details \(text\): holds a character its character set \(utf8mb3\) cannot store$/,
              ],
              [
                entry(7, { description: 'Actualizó 🧾' }),
                /^column description \(text\): holds a character its character set \(utf8mb3\) cannot store$/,
              ],
              [entry(8, { details: { field: 'é'.repeat(33_000) } }), /^column details \(text\): too long: 660\d\d > 65535 bytes$/],
            ] as const)
          : ([
              [
                entry(6, { description: 'Actualizó\u0000' }),
                /^column description \(text\): holds a character its character set \(UTF8\) cannot store$/,
              ],
            ] as const)),
      ];

      for (const fit of fitting) expect(store.refusalOf?.(fit)).toBeUndefined();
      for (const [unfitEntry, reason] of unfit) {
        const refusal = store.refusalOf?.(unfitEntry);
        expect(refusal).toMatchObject({ failure: 'refused', code: 'COLUMN_LIMIT', message: expect.stringMatching(reason) as string });
        expect(refusal?.message).not.toMatch(/uuu|eee|😀|🧾|éé/);
      }

      // The verdicts are the database's own: what fits is written, what does not is refused by it too.
      await store.write(fitting);
      for (const [unfitEntry] of unfit) expect(await databaseRefuses(store, unfitEntry)).toBe(true);
      expect((await store.recent(100)).map((row) => row.entity_id).sort()).toEqual(['1', '2', '3']);
    });

    it('a request id longer than its column is refused in memory, never cut', async () => {
      const { store } = await legacyTable({ request_id: 'VARCHAR(16)' });
      const longId = entry(1, { requestId: 'r'.repeat(40) });
      expect(store.refusalOf?.(longId)?.message).toMatch(/^column request_id \(.*\): too long: 40 > 16 characters$/);
      expect(store.refusalOf?.(entry(2, { requestId: 'r'.repeat(16) }))).toBeUndefined();
      // Written anyway, it is refused whole by the database: not cut to fit.
      expect(await databaseRefuses(store, longId)).toBe(true);
      expect(await store.recent(1)).toEqual([]);
    });

    it('a narrowed column is known after the next write it fails; a widened one after a refusal by limits older than their age, or a reconnect', async () => {
      const { store, table } = await legacyTable({}, 0);
      const twentyCharacters = entry(1, { userId: 'u'.repeat(20) });
      expect(store.refusalOf?.(twentyCharacters)).toBeUndefined();

      await modify(table, 'user_id', 'VARCHAR(10)');
      // Still the limits read at connect: the database refuses the write, and the limits are read again.
      expect(store.refusalOf?.(twentyCharacters)).toBeUndefined();
      expect(await databaseRefuses(store, twentyCharacters)).toBe(true);
      await until(() => store.refusalOf?.(twentyCharacters) !== undefined, 'the narrowed user_id known');

      await modify(table, 'user_id', 'VARCHAR(64)');
      const reopened = await openSqlActivityLogStore(target, { table });
      cleanup.push(() => reopened.close());
      expect(reopened.refusalOf?.(twentyCharacters)).toBeUndefined();
      // This store's limits are older than their age (0 here): the refusal has them read again.
      await until(() => store.refusalOf?.(twentyCharacters) === undefined, 'the widened user_id known');
      await store.write([twentyCharacters]);
      expect(await store.recent(1)).toMatchObject([{ user_id: 'u'.repeat(20) }]);
    });

    it("a table of the service's own schema: ordinary and wide entries fit", async () => {
      const table = `activity_log_n${randomBytes(4).toString('hex')}`;
      cleanup.push(() => dropTable(target, table));
      const store = await openSqlActivityLogStore(target, { table });
      cleanup.push(() => store.close());
      const wide = entry(2, { details: { field: 'x'.repeat(70_000), emoji: '😀' }, userAgent: 'UA/'.repeat(700), userId: 'u'.repeat(100) });
      expect(store.refusalOf?.(entry(1))).toBeUndefined();
      expect(store.refusalOf?.(wide)).toBeUndefined();
      expect(store.refusalOf?.(entry(3, { entityType: 'e'.repeat(65) }))?.message).toMatch(
        /^column entity_type \(.*\): too long: 65 > 64 characters$/,
      );
      await store.write([entry(1), wide]);
      expect(await store.recent(2)).toMatchObject([{ user_agent: 'UA/'.repeat(700) }, { entity_id: '1' }]);
    });
  });
}
