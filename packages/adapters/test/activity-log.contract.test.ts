import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inMemoryActivityLog } from '@cotizaciones/core/testing';
import { bufferedActivityLog, inMemoryActivityLogStore, toStoredActivity } from '../src/index.js';
import { openSqlActivityLogStore } from '../src/sql.js';
import { testActivityLog } from '../src/testing/index.js';
import { expectStoredRequestIds, testSqlActivityLogStore } from './support/sql-activity-log-suite.js';

// The in-process adapters and SQLite; activity-log.contract.int.test.ts runs the same against PostgreSQL and MariaDB.

testActivityLog('in-memory', () => {
  const log = inMemoryActivityLog();
  return Promise.resolve({
    log,
    stored: () => Promise.resolve(log.entries.map(toStoredActivity)),
    close: () => Promise.resolve(),
  });
});

testActivityLog('buffered, in-memory store', () => {
  const store = inMemoryActivityLogStore();
  const log = bufferedActivityLog(store);
  return Promise.resolve({
    log,
    stored: async () => (await store.recent(1_000_000)).reverse(),
    close: () => log.close(),
  });
});

describe('in-memory activity log store', () => {
  it('tells which request ids are stored', () => expectStoredRequestIds(inMemoryActivityLogStore()));
});

testSqlActivityLogStore('SQLite', `sqlite:${join(mkdtempSync(join(tmpdir(), 'activity-')), 'log.db')}`);

describe('SQL activity log store', () => {
  it('uses the table named activity_log by default', async () => {
    // In an in-memory SQLite database: opening creates the table, and a shared database must not keep it.
    const store = await openSqlActivityLogStore('sqlite::memory:');
    expect(store.table).toBe('activity_log');
    await store.close();
  });

  it('refuses an unsafe table name', async () => {
    await expect(openSqlActivityLogStore('sqlite::memory:', { table: 'x; DROP TABLE y' })).rejects.toThrow(/invalid table name/);
  });

  it('refuses a URL of no known engine, without echoing its password', async () => {
    await expect(openSqlActivityLogStore('oracle://user:secret@host/db')).rejects.toThrow(/^((?!secret).)*$/);
  });
});
