import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bufferedActivityLog, type ReadableActivityLogStore } from '../../src/index.js';
import { openSqlActivityLogStore } from '../../src/sql.js';
import { dropTable, sampleEntry, testActivityLog, type ActivityLogHarness } from '../../src/testing/index.js';

/** `storedRequestIds` on a store: the ids some entry carries, however many are asked (past one statement's batch). */
export async function expectStoredRequestIds(store: ReadableActivityLogStore): Promise<void> {
  await store.write([
    sampleEntry({ requestId: 'run:2' }),
    sampleEntry({ requestId: 'run:3' }),
    sampleEntry({ requestId: 'run:3' }),
    sampleEntry({ requestId: undefined }),
  ]);
  const asked = ['run:1', 'run:2', 'run:3', ...Array.from({ length: 600 }, (_, i) => `other:${i}`), 'it\'s "odd"'];
  expect(await store.storedRequestIds(asked)).toEqual(new Set(['run:2', 'run:3']));
  expect(await store.storedRequestIds(['run:3', ...Array.from({ length: 700 }, (_, i) => `x:${i}`), 'run:2'])).toEqual(
    new Set(['run:2', 'run:3']),
  );
  expect(await store.storedRequestIds([])).toEqual(new Set());
}

/** The activity-log contract and the SQL store's own cases against the database at `target`. */
export function testSqlActivityLogStore(name: string, target: string): void {
  testActivityLog(
    `buffered, ${name}`,
    async () => {
      const table = `activity_log_t${randomBytes(4).toString('hex')}`;
      const open = async (): Promise<ActivityLogHarness> => {
        const store = await openSqlActivityLogStore(target, { table });
        const log = bufferedActivityLog(store);
        return {
          log,
          stored: async () => (await store.recent(1_000_000)).reverse(),
          close: async () => {
            await log.flush();
            await dropTable(target, table);
            await log.close();
            if (target.startsWith('sqlite:')) rmSync(target.slice('sqlite:'.length), { force: true });
          },
          reopen: async () => {
            await log.close();
            return open();
          },
        };
      };
      return open();
    },
    { durable: true },
  );

  describe(`SQL activity log store: ${name}`, () => {
    it('tells which request ids are stored', async () => {
      const table = `activity_log_t${randomBytes(4).toString('hex')}`;
      const store = await openSqlActivityLogStore(target, { table });
      try {
        await expectStoredRequestIds(store);
      } finally {
        await dropTable(target, table);
        await store.close();
      }
    });

    it('creates the activity_log table with the contract columns when missing, and opens an existing one', async () => {
      const table = `activity_log_t${randomBytes(4).toString('hex')}`;
      const first = await openSqlActivityLogStore(target, { table });
      await first.write([sampleEntry()]);
      await first.close();
      const second = await openSqlActivityLogStore(target, { table });
      await second.write([sampleEntry({ entityId: 13n })]);
      const rows = await second.recent(10);
      expect(rows.map((row) => row.entity_id)).toEqual(['13', '12']);
      expect(Object.keys(rows[0] ?? {}).sort()).toEqual([
        'client_ip',
        'created_at',
        'description',
        'details',
        'entity_id',
        'entity_type',
        'event_key',
        'module',
        'request_id',
        'user_agent',
        'user_id',
      ]);
      await second.close();
      await dropTable(target, table);
    });

    it('answers a ping', async () => {
      // A table of its own: the shared test databases must not be left with one.
      const table = `activity_log_ping_${randomBytes(4).toString('hex')}`;
      const store = await openSqlActivityLogStore(target, { table });
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await dropTable(target, table);
    });
  });
}
