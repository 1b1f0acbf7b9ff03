import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { dropTable, missing, serviceUrls, startStubUpstream, type StubUpstreamServer } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { startProcess } from './support/process.js';
import { until } from './support/until.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form } from './support/service.js';

const urls = serviceUrls();
/** Nothing listens there: the store is down for as long as the process runs. */
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/test';

describe.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', urls.postgres))('the activity spool (a real PostgreSQL)', () => {
  const postgres = urls.postgres!;
  let stub: StubUpstreamServer;
  const tables: string[] = [];
  beforeAll(async () => {
    stub = await startStubUpstream();
  });
  afterAll(async () => {
    await stub.close();
    for (const table of tables) await dropTable(postgres, table);
  });

  const freshTable = () => {
    const table = `activity_log_spool_${randomBytes(4).toString('hex')}`;
    tables.push(table);
    return table;
  };
  const server = (spool: string, url: string, table: string) =>
    startProcess({
      ACTIVITY_LOG_URL: url,
      ACTIVITY_LOG_TABLE: table,
      ACTIVITY_LOG_SPOOL: spool,
      ACTIVITY_LOG_DEAD_LETTER: join(spool, '..', 'dead.jsonl'),
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: TOKEN,
      SESSION_KEYS: SESSION_KEY,
      DEV_LOGIN: '1',
    });
  /** `count` changes answered {"ok":true}, entity ids from `from`; their request ids. */
  const changes = async (url: string, count: number, from = 1) => {
    const cookie = cookieHeader(await fetch(`${url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: '7', name: 'Ana' }) }));
    for (let id = from; id < from + count; id += 1) {
      await expectAnswer(
        await fetch(`${url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(id) }), headers: { cookie } }),
        200,
        '{"ok":true}',
      );
    }
  };
  const kill = async (
    child: { kill(signal: NodeJS.Signals): boolean; once(event: 'exit', listener: () => void): unknown },
    signal: NodeJS.Signals,
  ) => {
    const exited = once(child as never, 'exit');
    child.kill(signal);
    await exited;
  };
  const rows = async (table: string) => {
    const reader = await openSqlActivityLogStore(postgres, { table });
    try {
      return await reader.recent(100_000);
    } finally {
      await reader.close();
    }
  };

  it('300 changes answered while the store is down, then kill -9: the next start writes each entry exactly once, and a start after that none again', async () => {
    const spool = join(mkdtempSync(join(tmpdir(), 'spool-')), 'activity-spool');
    const table = freshTable();
    const down = await server(spool, UNREACHABLE, table);
    await changes(down.url, 300);
    await kill(down.child, 'SIGKILL');

    const up = await server(spool, postgres, table);
    expect(await until(async () => (await rows(table).catch(() => [])).length >= 300, 30_000)).toBe(true);
    // Killed again as soon as the rows are there: acknowledgements may not be on disk yet.
    await kill(up.child, 'SIGKILL');
    expect(up.output()).toContain('"adopted":300,"unreadable":0');

    const again = await server(spool, postgres, table);
    await kill(again.child, 'SIGTERM');
    const stored = await rows(table);
    expect(stored).toHaveLength(300);
    expect(new Set(stored.map((row) => row.request_id)).size).toBe(300);
    expect(stored.map((row) => Number(row.entity_id)).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(readdirSync(spool)).toEqual([]);
  });

  it('two live processes on one spool folder never take over each other’s entries; the next start takes over a killed one’s', async () => {
    const spool = join(mkdtempSync(join(tmpdir(), 'spool-')), 'activity-spool');
    const table = freshTable();
    const down = await server(spool, UNREACHABLE, table);
    await changes(down.url, 5, 1);

    const beside = await server(spool, postgres, table);
    await changes(beside.url, 3, 101);
    await kill(beside.child, 'SIGTERM');
    expect(beside.output()).not.toContain('left in the spool by a stopped process');
    expect((await rows(table)).map((row) => row.entity_id).sort()).toEqual(['101', '102', '103']);

    await kill(down.child, 'SIGKILL');
    const next = await server(spool, postgres, table);
    await kill(next.child, 'SIGTERM');
    expect(next.output()).toContain('"adopted":5,"unreadable":0');
    expect((await rows(table)).map((row) => row.entity_id).sort()).toEqual(['1', '101', '102', '103', '2', '3', '4', '5']);
  });
});
