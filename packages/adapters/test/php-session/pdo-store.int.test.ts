import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { decodePhpSession, phpSessions, type PhpSessionProblem, type PhpSessionsOptions } from '../../src/php-session.js';
import { phpPdoStore } from '../../src/php-session/php-pdo-store.js';
import { sqlConnection, type SqlConnection, type SqlRow } from '../../src/php-session/pdo-connection.js';
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
  id: string;
  session: Record<string, unknown> | null;
}

const urls = serviceUrls();
const tempDir = temporaryDirs();
const ENGINES: Array<[SqlEngine, string | undefined]> = [
  ['postgres', urls.postgres],
  ['mysql', urls.mysql],
  ['sqlite', 'sqlite'],
];

// .ci/run installs php-pgsql, php-mysql and php-sqlite3; PostgreSQL and MariaDB run on every machine.
describe.each(ENGINES)('PHP sessions in a PDO session table on %s, written by a real PHP', (engine, url) => {
  const skipped =
    missingPhp(pdoExtension(engine), 'igbinary') ||
    (engine !== 'sqlite' && missing(`${engine} (TEST_${engine === 'mysql' ? 'MYSQL' : 'POSTGRES'}_URL)`, url));
  let table: PdoSessionTable;
  /** The store over this table, bounded at 4 KiB, its driver wrapped by `wrap` (to see what it answers or how often it is asked). */
  const storeOver = (wrap: (real: SqlConnection) => SqlConnection) =>
    phpPdoStore({
      database: parsePdoSavePath(table.savePath),
      table: [table.table],
      columns: DEFAULT_PDO_COLUMNS,
      gcMaxLifetimeSeconds: 1440,
      maxBytes: 4096,
      now: Date.now,
      connect: async (where, options) => wrap(await sqlConnection(where, options)),
    });
  let scratch: string;
  const phps: PhpServer[] = [];
  beforeAll(async () => {
    if (skipped) return;
    scratch = tempDir('php-sess-pdo-');
    table = await pdoSessionTable(engine, engine === 'sqlite' ? join(scratch, 'sessions.db') : url!);
  });
  afterAll(async () => {
    await Promise.all(phps.map((php) => php.stop()));
    await table?.drop();
  });

  const ini = (format = 'php', layout = 'expiry') => ({
    'session.serialize_handler': format,
    'pdo_session.layout': layout,
    ...table.phpIni,
  });
  const start = async (format = 'php', layout = 'expiry') => {
    const php = await phpServer(ini(format, layout));
    phps.push(php);
    return php;
  };
  const adapterFor = (problems: PhpSessionProblem[] = [], options: Partial<PhpSessionsOptions> = {}) =>
    phpSessions({
      saveHandler: 'pdo',
      savePath: table.savePath,
      pdoTable: table.table,
      activityKey: 'LAST_ACTIVITY',
      idleSeconds: 1800,
      onProblem: (problem) => problems.push(problem),
      ...options,
    });
  const idOf = (cookie: string | undefined) => cookie!.split('=')[1]!;
  const now = () => Math.floor(Date.now() / 1000);

  for (const [format, layout] of [
    ['php', 'expiry'],
    ['igbinary', 'expiry'],
    ['php', 'duration'],
    ['igbinary', 'duration'],
  ] as const) {
    it.skipIf(skipped)(`${format}, sess_lifetime as ${layout}: reads the user PHP signed in, and nothing once PHP signs out`, async () => {
      const php = await start(format, layout);
      const adapter = adapterFor([], { serializeHandler: format });
      await adapter.ready(5_000);
      const { cookie } = await php.get('session.php?action=signin&id=9007199254740993');
      const row = await table.row(idOf(cookie));
      // The layout PHP wrote: the expiry's Unix time, or gc_maxlifetime beside the write's time.
      expect(row!.lifetime).toBe(layout === 'expiry' ? row!.time + 1440 : 1440);
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9007199254740993', nombre: 'Ana Núñez' });
      await php.get('session.php?action=signout', cookie);
      expect(await table.row(idOf(cookie))).toBeUndefined();
      expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
      // An unknown id is read, not written.
      expect(await adapter.sessionFor(`PHPSESSID=${'u'.repeat(26)}`).currentUser()).toBeUndefined();
      expect(await table.row('u'.repeat(26))).toBeUndefined();
      await adapter.close();
    });
  }

  // PostgreSQL: a trigger can raise a message of its own making, quoting the row's id.
  it.skipIf(skipped || engine !== 'postgres')(
    "a failed touch is logged with the database's reason, the id cut out where the database quotes it",
    async () => {
      const refuse = `${table.table}_refuse`;
      await table.execute(
        `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused %', NEW.sess_id; END $$`,
      );
      await table.execute(`CREATE TRIGGER ${refuse} BEFORE UPDATE ON ${table.table} FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
      try {
        const problems: PhpSessionProblem[] = [];
        const adapter = adapterFor(problems);
        const id = `quoted${'q'.repeat(26)}`;
        // Written 100 s ago: the expiry touch is due.
        await table.insert(id, `user|a:1:{s:2:"id";i:5;}LAST_ACTIVITY|i:${now()};`, now() + 1440, now() - 100);
        expect((await adapter.sessionFor(`PHPSESSID=${id}`).currentUser())?.id).toBe('5');
        expect(problems).toEqual([
          expect.objectContaining({ kind: 'touch-failed', detail: expect.stringMatching(/refused <session id>$/) as string }),
        ]);
        expect(JSON.stringify(problems)).not.toContain(id);
        await adapter.close();
      } finally {
        await table.execute(`DROP TRIGGER ${refuse} ON ${table.table}`);
        await table.execute(`DROP FUNCTION ${refuse}()`);
      }
    },
  );

  it.skipIf(skipped)('an expired row is absent in both layouts, and the expiry touch never brings it back', async () => {
    const adapter = adapterFor();
    const data = `user|a:1:{s:2:"id";i:5;}LAST_ACTIVITY|i:${now()};`;
    const cases = [
      // [lifetime, time, signed in]: the expiry's Unix time…
      [now() + 60, now() - 100, true],
      [now() - 1, now() - 100, false],
      // …or a duration added to the time.
      [1440, now() - 1000, true],
      [1440, now() - 1500, false],
    ] as const;
    for (const [i, [lifetime, time, signedIn]] of cases.entries()) {
      const id = `expiry${i}${'e'.repeat(24)}`;
      await table.insert(id, data, lifetime, time);
      const user = await adapter.sessionFor(`PHPSESSID=${id}`).currentUser();
      expect(user?.id, `case ${i}`).toBe(signedIn ? '5' : undefined);
      const after = await table.row(id);
      if (signedIn) {
        // Touched as PdoSessionHandler's updateTimestamp: time = now, and the expiry moved with it.
        expect(after!.time).toBeGreaterThanOrEqual(now() - 1);
        expect(after!.lifetime).toBe(lifetime < time ? lifetime : lifetime + (after!.time - time));
      } else expect(after).toEqual({ data: Buffer.from(data), lifetime, time });
    }
    await adapter.close();
  });

  it.skipIf(skipped)('expiry touch: PHP sees the expiry moved, in the layout it wrote', async () => {
    for (const layout of ['expiry', 'duration']) {
      const php = await start('php', layout);
      const { cookie } = await php.get('session.php?action=signin&id=41');
      const id = idOf(cookie);
      // As if written 10 minutes ago.
      const written = (await table.row(id))!;
      const old = written.time - 600;
      const lifetime = layout === 'expiry' ? written.lifetime - 600 : written.lifetime;
      await table.insert(`${id}x`, written.data, lifetime, old);
      const problems: PhpSessionProblem[] = [];
      const adapter = adapterFor(problems);
      expect(await adapter.sessionFor(`PHPSESSID=${id}x`).currentUser()).toMatchObject({ id: '41' });
      expect(problems).toEqual([]);
      const touched = (await table.row(`${id}x`))!;
      expect(touched.data).toEqual(written.data);
      expect(touched.time).toBeGreaterThanOrEqual(written.time);
      expect(touched.lifetime).toBe(layout === 'expiry' ? touched.time + 1440 : 1440);
      const { body } = await php.get<Shown>('session.php?action=show', `PHPSESSID=${id}x`);
      expect(body.session).toMatchObject({ user: { id: 41 } });
      await adapter.close();
    }
  });

  it.skipIf(skipped)(
    'a session over PHP_SESSION_MAX_BYTES is refused by its length, its data never sent; other users read on',
    async () => {
      const problems: PhpSessionProblem[] = [];
      const rows: SqlRow[] = [];
      // The driver's own answers, as they reached the service.
      const store = storeOver((real) => ({
        ...real,
        query: async (statement, values) => {
          const found = await real.query(statement, values);
          rows.push(...found);
          return found;
        },
        first: async (statement, values) => {
          const found = await real.first(statement, values);
          if (found) rows.push(found);
          return found;
        },
      }));
      const big = `user|a:1:{s:2:"id";i:6;}pad|s:100000:"${'p'.repeat(100_000)}";`;
      await table.insert('b'.repeat(26), big, now() + 600, now());
      await table.insert('s'.repeat(26), 'user|a:1:{s:2:"id";i:8;}', now() + 600, now());
      const read = await store.read('b'.repeat(26));
      expect(read).toEqual({ kind: 'refused', reason: 'oversized', detail: `${Buffer.byteLength(big)} bytes` });
      expect(rows).toHaveLength(1);
      expect(rows[0]!['d']).toBeNull();
      expect(await store.read('s'.repeat(26))).toMatchObject({ kind: 'data', bytes: Buffer.from('user|a:1:{s:2:"id";i:8;}') });
      // Through the adapter: signed out, reported without the id.
      const adapter = adapterFor(problems, { maxBytes: 4096 });
      expect(await adapter.sessionFor(`PHPSESSID=${'b'.repeat(26)}`).currentUser()).toBeUndefined();
      expect(problems).toEqual([expect.objectContaining({ kind: 'oversized', detail: `${Buffer.byteLength(big)} bytes` })]);
      expect(JSON.stringify(problems)).not.toContain('b'.repeat(26));
      await Promise.all([store.close(), adapter.close()]);
    },
  );

  it.skipIf(skipped)(
    'reads at once: each its own row (absent, expired, oversized among them), the database asked fewer times than read',
    async () => {
      let statements = 0;
      const store = storeOver((real) => ({
        ...real,
        query: (statement, values) => ((statements += 1), real.query(statement, values)),
        first: (statement, values) => ((statements += 1), real.first(statement, values)),
      }));
      const ids = Array.from({ length: 40 }, (_, i) => `many${String(i).padStart(2, '0')}${'m'.repeat(20)}`);
      const modifiedMs: unknown = expect.any(Number);
      const expected = new Map<string, unknown>();
      for (const [i, id] of ids.entries()) {
        if (i % 10 === 3) continue; // no row
        if (i % 10 === 5) {
          await table.insert(id, 'user|i:1;', now() - 10, now() - 1450); // expired
          continue;
        }
        if (i % 10 === 7) {
          const big = `user|i:${i};pad|s:5000:"${'p'.repeat(5000)}";`;
          await table.insert(id, big, now() + 600, now());
          expected.set(id, { kind: 'refused', reason: 'oversized', detail: `${big.length} bytes` });
          continue;
        }
        await table.insert(id, `user|i:${i};`, now() + 600, now());
        expected.set(id, { kind: 'data', bytes: Buffer.from(`user|i:${i};`), final: true, modifiedMs });
      }
      const reads = await Promise.all(ids.map((id) => store.read(id)));
      for (const [i, id] of ids.entries()) expect(reads[i], id).toEqual(expected.get(id) ?? { kind: 'absent' });
      expect(statements).toBeLessThan(ids.length / 4);
      await store.close();
    },
  );

  it.skipIf(skipped)('isolation: a `C:` value elsewhere is skipped, the id alone is a user, a scalar of another kind is not', async () => {
    const adapter = adapterFor();
    const cases = [
      ['c', `cart|C:8:"Unknown1":5:{abcde}user|a:1:{s:2:"id";i:12;}LAST_ACTIVITY|i:${now()};`, '12'],
      ['i', `user|i:17;LAST_ACTIVITY|i:${now()};`, '17'],
      ['d', `user|s:3:"042";LAST_ACTIVITY|i:${now()};`, '042'],
      ['f', `user|d:1.5;LAST_ACTIVITY|i:${now()};`, undefined],
      ['n', `user|s:3:"ana";LAST_ACTIVITY|i:${now()};`, undefined],
      ['z', '', undefined],
    ] as const;
    for (const [name, data, user] of cases) {
      const id = `iso${name}${'i'.repeat(24)}`;
      await table.insert(id, data, now() + 600, now());
      expect((await adapter.sessionFor(`PHPSESSID=${id}`).currentUser())?.id, name).toBe(user);
    }
    await adapter.close();
  });

  it.skipIf(skipped)(
    'activity touch: a compare-and-set that never replaces a concurrent PHP write (lost updates counted)',
    async () => {
      const php = await start();
      const { cookie } = await php.get('session.php?action=signin&id=41');
      const id = idOf(cookie);
      // A second later at each PHP write: the next round of requests finds the activity time old enough to write.
      let offset = 0;
      const frozen: { ms?: number } = {};
      const problems: PhpSessionProblem[] = [];
      const adapter = adapterFor(problems, { touch: 'activity', now: () => frozen.ms ?? Date.now() + offset * 1000, idleSeconds: 10 ** 9 });
      await adapter.ready(5_000);
      const stopFile = join(scratch, `stop-writer-${engine}`);
      const writer = spawn('php', [...iniFlags(ini()), `${phpFixtures}writer.php`, id, stopFile], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = once(writer, 'exit');
      let output = '';
      writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      writer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const counter = async () => Number(decodePhpSession((await table.row(id))!.data, 'php').vars.get('counter') ?? 0);
      // Requests in parallel, 4 at a time, while PHP rewrites the session 50 times (the deadline only bounds a hang).
      const deadline = Date.now() + 30_000;
      let answered = 0;
      for (let written = 0, seen = 0; written < 50 && Date.now() < deadline; written = await counter()) {
        if (written !== seen) [seen, offset] = [written, offset + 1];
        const users = await Promise.all([1, 2, 3, 4].map(() => adapter.sessionFor(cookie).currentUser()));
        for (const user of users) expect(user).toMatchObject({ id: '41' });
        answered += users.length;
      }
      await writeFile(stopFile, '');
      await exited;
      const { rounds, lost } = JSON.parse(output) as { rounds: number; lost: number };
      console.log(`[pdo ${engine}] activity touch beside PHP: ${answered} requests, ${rounds} PHP writes, ${lost} lost`);
      expect(rounds).toBeGreaterThanOrEqual(50);
      expect(lost).toBe(0);
      // No touch failed (a statement PHP's lock held past its bound would say so).
      expect(problems).toEqual([]);
      const session = decodePhpSession((await table.row(id))!.data, 'php').vars;
      expect(session.get('counter')).toBe(rounds);
      // With PHP done, the activity time is written, and PHP reads it.
      const at = now() + offset + 5;
      frozen.ms = at * 1000;
      await adapter.sessionFor(cookie).currentUser();
      const { body } = await php.get<Shown>('session.php?action=show', cookie);
      expect(body.session).toMatchObject({ LAST_ACTIVITY: at, counter: rounds });
      await adapter.close();
    },
    60_000,
  );

  it.skipIf(skipped)('a missing table: ready fails naming it, reads are unavailable (503), not signed out', async () => {
    const adapter = adapterFor([], { pdoTable: `${table.table}_missing` });
    await expect(adapter.ready(300)).rejects.toThrow(
      new RegExp(`the PHP session table ${table.table}_missing \\(sess_id, sess_data, sess_lifetime, sess_time\\) in ${engine}`),
    );
    await expect(adapter.ping()).rejects.toBeInstanceOf(SessionUnavailableError);
    await expect(adapter.sessionFor(`PHPSESSID=${'x'.repeat(26)}`).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
    await adapter.close();
  });
});
