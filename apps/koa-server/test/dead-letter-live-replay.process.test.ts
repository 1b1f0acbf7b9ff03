import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { dropTable, missing, oldActivityTableSql, runSql, serviceUrls, startStubUpstream } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { startProcess } from './support/process.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form } from './support/service.js';

// The built server sets entries aside in its dead-letter file (its table refuses every one: a user
// id longer than the old schema's VARCHAR(64)) while the documented replay command, another
// process, writes that file to a table that takes them, again and again: every entry ends in the
// table exactly once, and none is left behind or lost.

const CLI = fileURLToPath(new URL('../node_modules/@cotizaciones/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);
const url = serviceUrls().postgres;
const REQUESTS = 120;

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', url))(
  'replaying the dead-letter file while the built server appends to it',
  () => {
    it(`${REQUESTS} entries set aside during repeated replays: each written once, none lost, the file left empty`, async () => {
      const target = url ?? '';
      const suffix = randomBytes(4).toString('hex');
      const refusing = `activity_log_live_${suffix}`;
      const taking = `activity_log_take_${suffix}`;
      cleanup.push(
        () => dropTable(target, refusing),
        () => dropTable(target, taking),
      );
      await runSql(target, oldActivityTableSql(false, refusing));
      const dir = mkdtempSync(join(tmpdir(), 'live-replay-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'dead.jsonl');
      const stub = await startStubUpstream();
      cleanup.push(() => stub.close());
      const server = await startProcess({
        ACTIVITY_LOG_URL: target,
        ACTIVITY_LOG_TABLE: refusing,
        ACTIVITY_LOG_DEAD_LETTER: file,
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: TOKEN,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
      });
      const cookie = cookieHeader(
        await fetch(`${server.url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: 'u'.repeat(100), name: 'Ana' }) }),
      );

      const replay = () =>
        run(process.execPath, [CLI, 'replay-dead-letter', file], {
          env: { PATH: process.env.PATH, ACTIVITY_LOG_URL: target, ACTIVITY_LOG_TABLE: taking },
        });
      let requesting = true;
      // The second half of the requests waits for a first replay to end: a second one then runs beside
      // them, however fast the first half went.
      let firstReplayDone!: () => void;
      const firstReplay = new Promise<void>((resolve) => (firstReplayDone = resolve));
      const requests = (async () => {
        for (let id = 1; id <= REQUESTS; id += 1) {
          if (id === REQUESTS / 2 + 1) await firstReplay;
          await expectAnswer(
            await fetch(`${server.url}${FIELD_PATH}`, {
              method: 'POST',
              body: form({ id: String(id), field: 'estado' }),
              headers: { cookie },
            }),
            200,
            '{"ok":true}',
          );
        }
        requesting = false;
      })();
      let replays = 0;
      while (requesting) {
        await replay();
        replays += 1;
        firstReplayDone();
      }
      await requests;
      server.child.kill('SIGTERM');
      expect(await new Promise((resolve) => server.child.once('exit', resolve))).toBe(0);
      const last = await replay();

      const reader = await openSqlActivityLogStore(target, { table: taking });
      const rows = await reader.recent(10 * REQUESTS);
      await reader.close();
      expect(replays).toBeGreaterThan(1);
      expect(rows).toHaveLength(REQUESTS);
      expect(new Set(rows.map((row) => row.request_id)).size).toBe(REQUESTS);
      expect(rows.map((row) => Number(row.entity_id)).sort((a, b) => a - b)).toEqual(Array.from({ length: REQUESTS }, (_, i) => i + 1));
      expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
      expect(last.stdout).toMatch(/ 0 still refused, 0 unreadable, 0 not tried, \d+ already stored, 0 failed the checks, 0 over 64 KiB\n$/);
    });
  },
);
