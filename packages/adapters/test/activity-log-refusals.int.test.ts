import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { bufferedActivityLog, deadLetterFile, replayDeadLetterFile, toStoredActivity } from '../src/index.js';
import { openSqlActivityLogStore, type SqlActivityLogStore } from '../src/sql.js';
import { entryOfDeadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { dropTable, missing, oldActivityTableSql, runSql, sampleEntry, serviceUrls } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

// One entry the database refuses between good ones, on the real PostgreSQL and MariaDB:
// every good entry is written, the refused one is set aside whole, and the replay writes it
// once the table is fixed.

const urls = serviceUrls();

const engines = [
  { name: 'PostgreSQL', url: urls.postgres, mysql: false },
  { name: 'MySQL/MariaDB', url: urls.mysql, mysql: true },
] as const;

const good = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(from + i), requestId: `req-${from + i}` }));
// Values no column of the table takes, yet ones the replay's checks let through (an IP, for one, is checked before it is recorded).
const longEntityType = (entityId: bigint) => sampleEntry({ entityId, requestId: `req-${entityId}`, entityType: 'e'.repeat(100) });
const longUserId = (entityId: bigint) => sampleEntry({ entityId, requestId: `req-${entityId}`, userId: 'u'.repeat(100) });
const emojiField = (entityId: bigint) => sampleEntry({ entityId, requestId: `req-${entityId}`, details: { field: 'estado 😀' } });
const longField = (entityId: bigint) =>
  sampleEntry({
    entityId,
    requestId: `req-${entityId}`,
    details: { field: 'x'.repeat(70_000) },
    userAgent: 'UA/'.repeat(700),
    userId: 'u'.repeat(100),
  });

interface Opened {
  readonly store: SqlActivityLogStore;
  readonly table: string;
  readonly file: string;
}

for (const { name, url, mysql } of engines) {
  describe.skipIf(missing(name, url))(`entries ${name} refuses`, () => {
    const target = url ?? '';
    const cleanup: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    async function open(preexisting: boolean): Promise<Opened> {
      const table = `activity_log_r${randomBytes(4).toString('hex')}`;
      cleanup.push(() => dropTable(target, table));
      if (preexisting) await runSql(target, oldActivityTableSql(mysql, table));
      const store = await openSqlActivityLogStore(target, { table });
      cleanup.push(() => store.close());
      return { store, table, file: join(temporaryDir('dead-letter-'), 'activity-dead-letter.jsonl') };
    }

    /** Records `entries` through the buffered log with a dead-letter file, and closes it. */
    async function record({ store, file }: Opened, entries: readonly ActivityEntry[]) {
      const log = bufferedActivityLog(
        { write: (batch) => store.write(batch), ping: () => store.ping(), close: () => Promise.resolve() },
        { deadLetter: deadLetterFile(file) },
      );
      for (const entry of entries) void log.record(entry);
      await log.close(10_000);
      return log.stats();
    }

    const rows = async ({ store }: Opened) => (await store.recent(5000)).reverse();
    const deadLettered = ({ file }: Opened) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(entryOfDeadLetterLine);

    it('a new table: one poisoned entry between good ones → 51 of 51 later entries written, the poisoned one set aside whole; replayed once the column is widened', async () => {
      const opened = await open(false);
      const bad = longEntityType(26n);
      // Wide values the endpoints can produce fit the new table: a 70 000-character field, an emoji, a 2 KB user agent.
      const before = [...good(24, 1), longField(25n)];
      const after = [emojiField(27n), ...good(50, 28)];
      const stats = await record(opened, [...before, bad, ...after]);

      const stored = await rows(opened);
      expect(stored).toEqual([...before, ...after].map(toStoredActivity));
      expect(stored.filter((row) => BigInt(row.entity_id) > 26n)).toHaveLength(51);
      expect(deadLettered(opened)).toEqual([bad]);
      expect(stats).toMatchObject({ written: 76, deadLettered: 1, deadLetterFailed: 0, retried: 0, queued: 0 });

      await runSql(
        target,
        `ALTER TABLE ${opened.table} ${mysql ? 'MODIFY entity_type VARCHAR(128) NOT NULL' : 'ALTER COLUMN entity_type TYPE VARCHAR(128)'}`,
      );
      expect(await replayDeadLetterFile(opened.file, opened.store)).toMatchObject({
        written: 1,
        stillRefused: 0,
        unreadable: 0,
        notTried: 0,
        failedChecks: 0,
      });
      expect(readFileSync(opened.file, 'utf8')).toBe('');
      expect((await rows(opened)).at(-1)).toEqual(toStoredActivity(bad));

      // Run again: nothing left to write, nothing written twice.
      expect(await replayDeadLetterFile(opened.file, opened.store)).toMatchObject({
        written: 0,
        alreadyStored: 0,
        stillRefused: 0,
        unreadable: 0,
        notTried: 0,
      });
      expect(await rows(opened)).toHaveLength(77);
    });

    /** Records `count` entries as one backlog through a log whose store writes are counted; what it wrote and set aside. */
    async function recordCounted({ store, file }: Opened, count: number) {
      let writes = 0;
      const log = bufferedActivityLog(
        {
          write(batch) {
            writes += 1;
            return store.write(batch);
          },
          ping: () => store.ping(),
          close: () => Promise.resolve(),
        },
        { deadLetter: deadLetterFile(file), lingerMs: 0 },
      );
      const started = performance.now();
      for (const entry of good(count, 1)) void log.record(entry);
      await log.close(120_000);
      return { writes, stats: log.stats(), seconds: (performance.now() - started) / 1000 };
    }

    it('a CHECK constraint refusing every entry (a bad migration): 2 000 set aside, one store write each after the first', async () => {
      const opened = await open(false);
      await runSql(target, `ALTER TABLE ${opened.table} ADD CONSTRAINT ${opened.table}_none CHECK (entity_id < 0)`);
      const { writes, stats } = await recordCounted(opened, 2_000);
      expect(stats).toMatchObject({ written: 0, deadLettered: 2_000, queued: 0 });
      expect(deadLettered(opened)).toHaveLength(2_000);
      // The first refused entry of a full batch of 500: at most one write per halving, and the batch itself.
      expect(writes).toBeLessThanOrEqual(1_999 + Math.ceil(Math.log2(500)) + 1);
    });

    it('a CHECK constraint refusing one entry in four: every ordinary entry written, at most 1.5 store writes per entry', async () => {
      const opened = await open(false);
      await runSql(target, `ALTER TABLE ${opened.table} ADD CONSTRAINT ${opened.table}_quarter CHECK (MOD(entity_id, 4) <> 0)`);
      const { writes, stats } = await recordCounted(opened, 2_000);
      expect(stats).toMatchObject({ written: 1_500, deadLettered: 500, queued: 0 });
      expect((await rows(opened)).map((row) => Number(row.entity_id) % 4).filter((rest) => rest === 0)).toEqual([]);
      expect(writes).toBeLessThanOrEqual(1.5 * 2_000);
    });

    it(`a pre-existing table of the old schema${mysql ? ' in utf8mb3' : ''}: the good entries written, the refused ones set aside, replayed after the table is fixed`, async () => {
      const opened = await open(true);
      const entries = [...good(3, 1), emojiField(4n), ...good(3, 5), longField(8n), ...good(3, 9), longUserId(12n), ...good(3, 13)];
      // MySQL refuses an emoji in utf8mb3 and 70 000 characters in TEXT; both refuse 100 characters in VARCHAR(64)
      // (the long field's entry also has a 100-character user id).
      const refused = new Set(mysql ? [4n, 8n, 12n] : [8n, 12n]);
      const stats = await record(opened, entries);

      expect(await rows(opened)).toEqual(entries.filter((e) => !refused.has(e.entityId)).map(toStoredActivity));
      // Set aside whole, but for the 70 000-character field: a dead-letter line keeps 64 KiB, the value cut, saying how long it was.
      const setAside = deadLettered(opened);
      expect(setAside).toEqual(
        entries
          .filter((e) => refused.has(e.entityId))
          .map((e) => (e.entityId === 8n ? { ...e, details: { field: expect.stringMatching(/^x+…\[cut: 70000 bytes\]$/) as string } } : e)),
      );
      expect(stats).toMatchObject({ written: entries.length - refused.size, deadLettered: refused.size, retried: 0 });

      // Before the fix the replay keeps every entry, with the store's reason.
      expect(await replayDeadLetterFile(opened.file, opened.store)).toMatchObject({ written: 0, stillRefused: refused.size });
      const line = JSON.parse(readFileSync(opened.file, 'utf8').split('\n')[0] ?? '') as { code: string };
      expect(line.code).toBe(mysql ? 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD' : '22001');

      await runSql(
        target,
        mysql
          ? `ALTER TABLE ${opened.table} CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, MODIFY details LONGTEXT NULL, MODIFY user_id TEXT NOT NULL`
          : `ALTER TABLE ${opened.table} ALTER COLUMN user_id TYPE TEXT`,
      );
      expect(await replayDeadLetterFile(opened.file, opened.store)).toMatchObject({
        written: refused.size,
        stillRefused: 0,
        unreadable: 0,
        notTried: 0,
        failedChecks: 0,
      });
      expect(readFileSync(opened.file, 'utf8')).toBe('');
      const stored = await rows(opened);
      expect(stored).toHaveLength(entries.length);
      expect(stored.slice(-refused.size)).toEqual(setAside.map((e) => toStoredActivity(e!)));
    });
  });
}

describe.skipIf(missing('MySQL/MariaDB (TEST_MYSQL_URL)', urls.mysql))(
  'a new MySQL/MariaDB table in a database whose default charset is utf8mb3',
  () => {
    it('is created in utf8mb4: an emoji is stored, not refused', async () => {
      const database = `activity_db${randomBytes(4).toString('hex')}`;
      const server = urls.mysql ?? '';
      await runSql(server, `CREATE DATABASE ${database} CHARACTER SET utf8mb3`);
      try {
        const store = await openSqlActivityLogStore(server.replace(/\/[^/]*$/, `/${database}`));
        const entry = sampleEntry({ details: { field: 'estado 😀' }, description: 'Actualizó 🧾' });
        await store.write([entry]);
        expect(await store.recent(1)).toEqual([toStoredActivity(entry)]);
        await store.close();
      } finally {
        await runSql(server, `DROP DATABASE ${database}`);
      }
    });
  },
);

describe.skipIf(missing('MySQL/MariaDB (TEST_MYSQL_URL)', urls.mysql))(
  'an entry larger than MySQL/MariaDB accepts in one statement (max_allowed_packet)',
  () => {
    it('is set aside, and the entries after it are written over a fresh connection', async () => {
      const url = urls.mysql ?? '';
      const table = `activity_log_p${randomBytes(4).toString('hex')}`;
      const store = await openSqlActivityLogStore(url, { table });
      try {
        const { createPool } = await import('mysql2');
        const pool = createPool({ uri: url, connectionLimit: 1 }).promise();
        const [[{ limit }]] = (await pool.query('SELECT @@max_allowed_packet AS `limit`')) as unknown as [[{ limit: number }]];
        await pool.end();
        const huge = sampleEntry({ entityId: 2n, details: { field: 'x'.repeat(limit + 1024) } });
        const file = join(temporaryDir('dead-letter-'), 'dead.jsonl');
        const log = bufferedActivityLog(store, { deadLetter: deadLetterFile(file), retryMinMs: 10 });
        for (const entry of [sampleEntry({ entityId: 1n }), huge, sampleEntry({ entityId: 3n }), sampleEntry({ entityId: 4n })])
          void log.record(entry);
        await log.flush();
        expect((await store.recent(10)).map((row) => row.entity_id).reverse()).toEqual(['1', '3', '4']);
        const [line] = readFileSync(file, 'utf8').split('\n');
        expect(JSON.parse(line ?? '')).toMatchObject({ code: 'ER_NET_PACKET_TOO_LARGE', entry: { entityId: '2' } });
        expect(log.stats()).toMatchObject({ written: 3, deadLettered: 1 });
      } finally {
        await dropTable(url, table);
        await store.close();
      }
    });
  },
);
