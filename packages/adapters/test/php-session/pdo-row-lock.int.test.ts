import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodePhpSession, phpSessions, type PhpSessionProblem } from '../../src/php-session.js';
import { phpPdoStore } from '../../src/php-session/php-pdo-store.js';
import { sqlConnection, type SqlConnection } from '../../src/php-session/pdo-connection.js';
import { DEFAULT_PDO_COLUMNS, parsePdoSavePath } from '../../src/php-session/pdo-table.js';
import { iniFlags, phpFixtures, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import {
  missing,
  missingPhp,
  pdoExtension,
  pdoSessionTable,
  serviceUrls,
  temporaryDirs,
  type PdoSessionTable,
} from '../../src/testing/index.js';
import type { SqlEngine } from '../../src/activity-log/activity-log-url.js';

interface Shown {
  session: Record<string, unknown> | null;
}

const urls = serviceUrls();
const tempDir = temporaryDirs();

/** The service's clock, two minutes ahead of PHP's: a touch that waited for PHP's commit still finds PHP's write older. */
const AHEAD_MS = 120_000;

// Symfony's PdoSessionHandler locks the row for the whole request (LOCK_TRANSACTIONAL, its default on MySQL and
// PostgreSQL): pdo-handler.php with pdo_session.lock=transactional does the same, in a real PHP.
describe.each<[SqlEngine, string | undefined]>([
  ['postgres', urls.postgres],
  ['mysql', urls.mysql],
])('a PHP request holding its session row locked (LOCK_TRANSACTIONAL) on %s', (engine, url) => {
  const skipped = missingPhp(pdoExtension(engine)) || missing(`${engine} (TEST_${engine === 'mysql' ? 'MYSQL' : 'POSTGRES'}_URL)`, url);
  let table: PdoSessionTable;
  let php: PhpServer;
  let scratch: string;
  // A connection of the test's own: what the database says, beside PHP's and the service's.
  let watcher: SqlConnection;
  beforeAll(async () => {
    if (skipped) return;
    scratch = tempDir('php-sess-pdo-lock-');
    table = await pdoSessionTable(engine, url!);
    php = await phpServer(ini());
    watcher = await sqlConnection({ engine, url: url! }, { statementTimeoutMs: 10_000, lockWaitMs: 10_000 });
  });
  // What a test opened, ended even when it fails: a PHP request still holding its row would keep the DROP waiting.
  const opened: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const end of opened.splice(0).reverse()) await end();
  });
  afterAll(async () => {
    await php?.stop();
    await watcher?.close();
    await table?.drop();
  });

  const ini = () => ({ 'pdo_session.lock': 'transactional', ...table.phpIni });
  const idOf = (cookie: string | undefined) => cookie!.split('=')[1]!;
  const later = () => Date.now() + AHEAD_MS;
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const counterOf = (data: Buffer) => decodePhpSession(data, 'php').vars.get('counter');

  /** A user signed in through PHP, the row written 10 minutes ago (an expiry touch is due). */
  async function signedIn(user: number) {
    const { cookie } = await php.get(`session.php?action=signin&id=${user}`);
    const id = idOf(cookie);
    const written = (await table.row(id))!;
    const old = written.time - 600;
    await table.setTimes(id, old + 1440, old);
    return { cookie, id, old };
  }

  /**
   * `php hold-session.php` on the session: its read selects the row FOR UPDATE in a transaction, and it says
   * "open" holding that lock; `release()` lets it add 1 to the session's counter, write and commit.
   */
  async function holdRow(id: string) {
    const stop = join(scratch, `release-${id}`);
    const holder = spawn('php', [...iniFlags(ini()), `${phpFixtures}hold-session.php`, id, stop, 'count'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(holder, 'exit');
    opened.push(() => void holder.kill('SIGKILL'));
    let output = '';
    holder.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    holder.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.once('data', () => resolve());
      holder.once('exit', () => reject(new Error(`hold-session.php ended before opening the session: ${output}`)));
    });
    expect(output).toBe('open\n');
    // The lock is PHP's: another connection cannot take it.
    await expect(watcher.query(`SELECT sess_id FROM ${table.table} WHERE sess_id = ? FOR UPDATE NOWAIT`, [id])).rejects.toThrow(
      engine === 'postgres' ? /55P03/ : /ER_LOCK_WAIT_TIMEOUT/,
    );
    return {
      holding: () => holder.exitCode === null,
      async release() {
        await writeFile(stop, '');
        const [code] = (await exited) as [number | null];
        expect(code, output).toBe(0);
      },
    };
  }

  /** The service's UPDATEs of the session table that wait for a row lock, as the database reports them. */
  async function updatesWaitingOnLock(): Promise<number> {
    const waiting = await watcher.query(
      engine === 'postgres'
        ? `SELECT query AS q FROM pg_stat_activity WHERE wait_event_type = 'Lock'`
        : `SELECT trx_query AS q FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'`,
      [],
    );
    return waiting.filter(({ q }) => typeof q === 'string' && q.startsWith('UPDATE') && q.includes(table.table)).length;
  }

  async function until(condition: () => Promise<boolean>, what: string) {
    // A bound against a hang only.
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`not within 20 s: ${what}`);
      // Not more often: InnoDB refreshes what INNODB_TRX shows only after 100 ms without a read of it.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it.skipIf(skipped)(
    "reads answer signed in without waiting for PHP's lock; an expiry touch waits for PHP's commit, then moves the expiry of PHP's write, which stands",
    async () => {
      const { cookie, id, old } = await signedIn(61);
      const at = later();
      // Reads alone (no touch), and the touch through the store with a bound far past the lock's hold.
      const reader = phpSessions({ saveHandler: 'pdo', savePath: table.savePath, pdoTable: table.table, touch: 'none', now: () => at });
      const store = phpPdoStore({
        database: parsePdoSavePath(table.savePath),
        table: [table.table],
        columns: DEFAULT_PDO_COLUMNS,
        gcMaxLifetimeSeconds: 1440,
        maxBytes: 1024 * 1024,
        now: () => at,
        statementTimeoutMs: 60_000,
      });
      opened.push(
        () => reader.close(),
        () => store.close(),
      );
      const held = await holdRow(id);

      const users = await Promise.all([1, 2, 3, 4].map(() => reader.sessionFor(cookie).currentUser()));
      for (const user of users) expect(user).toMatchObject({ id: '61' });
      expect(held.holding()).toBe(true);

      let touched = false;
      const touch = store.touchExpiry(id, old * 1000).then(() => (touched = true));
      await until(async () => (await updatesWaitingOnLock()) === 1, "the service's UPDATE waiting on PHP's row lock");
      expect(touched).toBe(false);
      expect((await table.row(id))!.time).toBe(old);

      await held.release();
      await touch;
      const row = (await table.row(id))!;
      // PHP's write (counter 1, its time and expiry), then the touch on top of it: time = the service's now, PHP's span kept.
      expect(counterOf(row.data)).toBe(1);
      expect(row.time).toBe(seconds(at));
      expect(row.lifetime).toBe(seconds(at) + 1440);
      const { body } = await php.get<Shown>('session.php?action=show', cookie);
      expect(body.session).toMatchObject({ user: { id: 61 }, counter: 1 });
    },
    60_000,
  );

  it.skipIf(skipped)(
    "a lock held past the touch's 2 s bound: the user is answered signed in, the failed touch logged; PHP's write stands, the touch applied after it",
    async () => {
      const { cookie, id, old } = await signedIn(62);
      const at = later();
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({
        saveHandler: 'pdo',
        savePath: table.savePath,
        pdoTable: table.table,
        now: () => at,
        onProblem: (problem) => problems.push(problem),
      });
      opened.push(() => adapter.close());
      const held = await holdRow(id);

      const started = Date.now();
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '62' });
      // Generous: the touch's own bound is 2 s.
      expect(Date.now() - started).toBeLessThan(15_000);
      // The store's reason, not only that it failed.
      expect(problems).toEqual([
        expect.objectContaining({ kind: 'touch-failed', detail: expect.stringMatching(/^the PHP session table .+: .+/) as string }),
      ]);
      expect(JSON.stringify(problems)).not.toContain(id);
      // Still PHP's: nothing changed yet, the service's UPDATE waiting in the database.
      expect(held.holding()).toBe(true);
      expect(await table.row(id)).toMatchObject({ time: old, lifetime: old + 1440 });
      expect(await updatesWaitingOnLock()).toBe(1);

      await held.release();
      // The connection finishes the statement once PHP commits.
      await until(async () => (await table.row(id))!.time === seconds(at), 'the touch applied after PHP committed');
      const row = (await table.row(id))!;
      expect(counterOf(row.data)).toBe(1);
      expect(row.lifetime).toBe(seconds(at) + 1440);
      const { body } = await php.get<Shown>('session.php?action=show', cookie);
      expect(body.session).toMatchObject({ user: { id: 62 }, counter: 1 });
    },
    60_000,
  );
});
