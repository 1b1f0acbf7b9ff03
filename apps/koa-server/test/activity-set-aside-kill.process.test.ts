import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import {
  dropTable,
  missing,
  oldActivityTableSql,
  runSql,
  serviceUrls,
  startStubUpstream,
  type StubUpstreamServer,
} from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { deadLetterLines } from './support/dead-letter-lines.js';
import { holdLock } from './support/lock-holder.js';
import { startProcess } from './support/process.js';
import { fillDisk } from './support/fill-disk.js';
import { until } from './support/until.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form } from './support/service.js';

// A real process killed after it set entries aside in the dead-letter file and before their
// acknowledgement reached its spool, then a start and the replay command, in both orders: each
// entry written once. The window is made to last without a hook in the service: another process
// holds the dead-letter file's lock (as the replay does) while the entries are spooled and wait
// for their append, the spool's file system is then filled to its last byte, so the
// acknowledgements that follow the append cannot be written, and the process is killed.

const CLI = fileURLToPath(new URL('../node_modules/@cotizaciones/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);
const urls = serviceUrls();
const root = process.getuid?.() === 0;
const PAGE = 4096;
// A user id longer than the legacy table's VARCHAR(64): every entry of this user is refused, known from the table's columns.
const LONG_USER = 'u'.repeat(100);
const REFUSED = 20;

const segments = (spool: string) => {
  try {
    return readdirSync(spool)
      .filter((name) => name.endsWith('.spool'))
      .map((name) => join(spool, name));
  } catch {
    return [];
  }
};
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', urls.postgres) || missing('root (the test mounts a small file system)', root))(
  'a process killed between a set-aside and its acknowledgement',
  () => {
    const postgres = urls.postgres!;
    const cleanup: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    /** The service on `spool` and `deadLetter`, its activity table `table`. */
    const start = (stub: StubUpstreamServer, table: string, spool: string, deadLetter: string) =>
      startProcess({
        ACTIVITY_LOG_URL: postgres,
        ACTIVITY_LOG_TABLE: table,
        ACTIVITY_LOG_SPOOL: spool,
        ACTIVITY_LOG_DEAD_LETTER: deadLetter,
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: TOKEN,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
      });

    const replay = (table: string, file: string) =>
      run(process.execPath, [CLI, 'replay-dead-letter', file], {
        env: { PATH: process.env.PATH, ACTIVITY_LOG_URL: postgres, ACTIVITY_LOG_TABLE: table },
      });

    /** The state the window leaves: each refused entry in the dead-letter file, and in the killed process's spool segment unacknowledged. */
    async function killedInTheWindow() {
      const stub = await startStubUpstream();
      cleanup.push(() => stub.close());
      const table = `activity_log_kw${randomBytes(4).toString('hex')}`;
      cleanup.push(() => dropTable(postgres, table));
      await runSql(postgres, oldActivityTableSql(false, table));
      const mount = mkdtempSync(join(tmpdir(), 'ack-window-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
      cleanup.push(() => {
        execFileSync('umount', ['--lazy', mount]);
        rmSync(mount, { recursive: true, force: true });
      });
      const dir = mkdtempSync(join(tmpdir(), 'dead-letter-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const spool = join(mount, 'spool');
      const deadLetter = join(dir, 'dead-letter.jsonl');
      writeFileSync(deadLetter, '', { mode: 0o600 });
      const lock = await holdLock(deadLetter);
      cleanup.push(() => lock.release());

      const server = await start(stub, table, spool, deadLetter);
      const login = await fetch(`${server.url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: LONG_USER, name: 'Ana' }) });
      const cookie = cookieHeader(login);
      const change = async (id: number, field = 'estado') =>
        expectAnswer(
          await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(id), field }), headers: { cookie } }),
          200,
          '{"ok":true}',
        );
      const segmentBytes = () => segments(spool).reduce((sum, file) => sum + statSync(file).size, 0);
      const entryLines = () => segments(spool).flatMap((file) => lines(file).filter((line) => line.startsWith('{"e":')));

      for (let id = 10; id < 10 + REFUSED - 1; id += 1) await change(id);
      expect(await until(() => entryLines().length === REFUSED - 1, 10_000)).toBe(true);
      // The last entry ends the segment on a page boundary: a full tmpfs then has no byte left for an acknowledgement.
      const lineBytes = Buffer.byteLength(entryLines()[0]!) + 1;
      let short = (PAGE - (segmentBytes() % PAGE)) % PAGE;
      if (short < lineBytes) short += PAGE;
      await change(10 + REFUSED - 1, `estado${'x'.repeat(short - lineBytes)}`);
      expect(await until(() => entryLines().length === REFUSED, 10_000)).toBe(true);
      expect(segmentBytes() % PAGE).toBe(0);
      fillDisk(join(mount, 'filler'));

      await lock.release();
      expect(await until(() => deadLetterLines(deadLetter).length === REFUSED, 10_000)).toBe(true);
      const killed = once(server.child, 'exit');
      server.child.kill('SIGKILL');
      await killed;
      rmSync(join(mount, 'filler'));

      // The window, as the killed process left it: every entry set aside, none acknowledged.
      const [segment, ...more] = segments(spool);
      expect(more).toEqual([]);
      expect(lines(segment!).filter((line) => line.startsWith('{"e":'))).toHaveLength(REFUSED);
      // No acknowledgement line (whatever its format): only the format's line and the entries.
      expect(lines(segment!).filter((line) => !line.startsWith('{"e":') && !line.startsWith('{"spool":'))).toEqual([]);
      const ids = deadLetterLines(deadLetter).map((line) => Number(line.entry.entityId));
      expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: REFUSED }, (_, i) => i + 10));
      return { stub, table, spool, deadLetter };
    }

    /** Starts the service on the killed one's spool, waits for its take-over to finish the segment, and stops it. */
    async function startAndStop(state: Awaited<ReturnType<typeof killedInTheWindow>>) {
      const next = await start(state.stub, state.table, state.spool, state.deadLetter);
      expect(await until(() => segments(state.spool).every((file) => lines(file).every((line) => !line.startsWith('{"e":'))), 20_000)).toBe(
        true,
      );
      const exited = once(next.child, 'exit');
      next.child.kill('SIGTERM');
      await exited;
    }

    const fixAndReplay = async (state: Awaited<ReturnType<typeof killedInTheWindow>>) => {
      await runSql(postgres, `ALTER TABLE ${state.table} ALTER COLUMN user_id TYPE TEXT`);
      const { stdout } = await replay(state.table, state.deadLetter);
      return stdout;
    };

    async function storedIds(table: string): Promise<number[]> {
      const reader = await openSqlActivityLogStore(postgres, { table });
      try {
        return (await reader.recent(1000)).map((row) => Number(row.entity_id)).sort((a, b) => a - b);
      } finally {
        await reader.close();
      }
    }

    it('the next start first, then the replay: each entry written once', async () => {
      const state = await killedInTheWindow();
      await startAndStop(state);
      expect(await storedIds(state.table)).toEqual([]);
      expect(deadLetterLines(state.deadLetter)).toHaveLength(REFUSED);
      expect(await fixAndReplay(state)).toContain(`${REFUSED} written, 0 still refused`);
      expect(await storedIds(state.table)).toEqual(Array.from({ length: REFUSED }, (_, i) => i + 10));
      expect(deadLetterLines(state.deadLetter)).toEqual([]);
    }, 120_000);

    it('the replay first, then the next start: each entry written once', async () => {
      const state = await killedInTheWindow();
      expect(await fixAndReplay(state)).toContain(`${REFUSED} written, 0 still refused`);
      await startAndStop(state);
      expect(await storedIds(state.table)).toEqual(Array.from({ length: REFUSED }, (_, i) => i + 10));
      expect(deadLetterLines(state.deadLetter)).toEqual([]);
    }, 120_000);
  },
);
