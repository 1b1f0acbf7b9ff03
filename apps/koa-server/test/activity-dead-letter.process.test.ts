import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { dropTable, freePort, missing, oldActivityTableSql, runSql, serviceUrls, startStubUpstream } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { startProcess } from './support/process.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form, startService, type TestService } from './support/service.js';

// One request whose audit entry the database refuses, between good ones, through the real service:
// the good entries are written, the refused one is set aside in the dead-letter file, and the
// documented replay command writes it once the table is fixed.

// The operator's command, as the bundle ships it (the CLI is one of the server's dependencies).
const CLI = fileURLToPath(new URL('../node_modules/@cotizaciones/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);
const urls = serviceUrls();

async function replay(env: Record<string, string>, file: string) {
  return run(process.execPath, [CLI, 'replay-dead-letter', file], { env: { PATH: process.env.PATH, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
  );
}

const cases = [
  {
    name: 'MariaDB, an existing utf8mb3 table: an emoji in the field',
    url: urls.mysql,
    replayUrl: urls.mysql,
    mysql: true,
    poison: { user: '7', field: 'estado 😀' },
    fix: 'CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
  },
  {
    name: 'PostgreSQL, an existing table: a user id longer than its VARCHAR(64)',
    url: urls.postgres,
    // Trust authentication accepts any password: the command sees one and must never print it.
    replayUrl: urls.postgres?.replace('postgres://postgres@', 'postgres://postgres:Replay-SECRET-pw@'),
    mysql: false,
    poison: { user: 'u'.repeat(100), field: 'estado' },
    fix: 'ALTER COLUMN user_id TYPE TEXT',
  },
] as const;

describe('an audit entry the database refuses', () => {
  let svc: TestService | undefined;
  const tables: Array<[string, string]> = [];
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    for (const [url, table] of tables.splice(0)) await dropTable(url, table);
  });

  for (const { name, url, replayUrl, mysql, poison, fix } of cases) {
    it.skipIf(missing(name, url))(
      `${name}: the 51 later entries written, the refused one in the dead-letter file, counted; the replay command restores it once the table is fixed`,
      async () => {
        const target = url ?? '';
        const table = `activity_log_dl${randomBytes(4).toString('hex')}`;
        tables.push([target, table]);
        await runSql(target, oldActivityTableSql(mysql, table));
        svc = await startService({ ACTIVITY_LOG_URL: target, ACTIVITY_LOG_TABLE: table });
        const good = await svc.signIn('7');
        const bad = await svc.signIn(poison.user);

        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1', field: 'estado' }), { cookie: good }), 200, '{"ok":true}');
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '2', field: poison.field }), { cookie: bad }), 200, '{"ok":true}');
        for (let id = 3; id <= 53; id += 1) {
          await expectAnswer(await svc.post(FIELD_PATH, form({ id: String(id), field: 'estado' }), { cookie: good }), 200, '{"ok":true}');
        }

        const rows = await svc.rows();
        expect(rows.map((row) => Number(row.entity_id))).toEqual([1, ...Array.from({ length: 51 }, (_, i) => i + 3)]);
        const lines = readFileSync(svc.deadLetterFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '');
        expect(lines).toHaveLength(1);
        const setAside = JSON.parse(lines[0] ?? '') as { code: string; reason: string; refusedAt: string; entry: Record<string, unknown> };
        // Known from the table's columns, read at connect: set aside without a write.
        expect(setAside.code).toBe('COLUMN_LIMIT');
        expect(setAside.reason).toMatch(
          mysql
            ? /^column details \(.*\): holds a character its character set \(utf8mb3\) cannot store$/
            : /^column user_id \(.*64.*\): too long: 100 > 64/,
        );
        expect(setAside.entry).toMatchObject({
          entityId: '2',
          userId: poison.user,
          details: { field: poison.field },
          eventKey: 'cotizaciones.update',
          module: 'Cotizaciones',
        });
        expect(svc.service.activityLog.stats()).toMatchObject({ written: 52, deadLettered: 1, retried: 0, queued: 0 });
        const metrics = await (await fetch(`${svc.url}/metrics`)).text();
        expect(metrics).toMatch(/^activity_log_dead_lettered_total 1$/m);
        const reported = svc.logs.lines.filter(
          (line) => line.msg === 'activity log entry refused by the store; set aside in the dead-letter file',
        );
        expect(reported).toHaveLength(1);
        expect(reported[0]).toMatchObject({ entry: { entityId: '2', eventKey: 'cotizaciones.update' } });
        const file = svc.deadLetterFile;
        await svc.close();
        svc = undefined;

        // The command, as documented: the service's variables, the file as its argument.
        const env = { ACTIVITY_LOG_URL: replayUrl ?? '', ACTIVITY_LOG_TABLE: table };
        const refusedStill = await replay(env, file);
        expect(refusedStill).toMatchObject({ code: 1 });
        expect(refusedStill.output).toContain('0 written, 1 still refused, 0 unreadable, 0 not tried');
        expect(
          readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => line !== ''),
        ).toHaveLength(1);

        await runSql(target, `ALTER TABLE ${table} ${fix}`);
        const replayed = await replay(env, file);
        expect(replayed).toMatchObject({ code: 0 });
        expect(replayed.output).toContain('1 written, 0 still refused, 0 unreadable, 0 not tried');
        expect(readFileSync(file, 'utf8')).toBe('');
        const again = await replay(env, file);
        expect(again).toMatchObject({ code: 0 });
        expect(again.output).toContain('0 written, 0 still refused');

        const reader = await openSqlActivityLogStore(target, { table });
        const stored = (await reader.recent(100)).reverse();
        await reader.close();
        expect(stored).toHaveLength(53);
        expect(stored.at(-1)).toMatchObject({ entity_id: '2', user_id: poison.user, details: JSON.stringify({ field: poison.field }) });
        for (const output of [refusedStill.output, replayed.output, again.output]) expect(output).not.toContain('SECRET');
        rmSync(dirname(file), { recursive: true, force: true });
      },
    );
  }

  it('the replay command against a database it cannot reach: exit 1, the cause printed, the password never, the file untouched', async () => {
    const file = `${tmpdir()}/replay-${randomBytes(4).toString('hex')}.jsonl`;
    const line = '{"refusedAt":"2026-01-01T00:00:00.000Z","code":"22001","reason":"x","entry":{}}\n';
    writeFileSync(file, line);
    const result = await replay({ ACTIVITY_LOG_URL: 'postgres://postgres:Replay-SECRET-pw@127.0.0.1:1/test' }, file);
    expect(result.code).toBe(1);
    expect(result.output).toContain('ECONNREFUSED');
    expect(result.output).not.toContain('SECRET');
    expect(readFileSync(file, 'utf8')).toBe(line);
    rmSync(file);
  });
});

describe.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', urls.postgres))('a database down for the whole life of the service', () => {
  it('SIGTERM exits 0 with every entry in the dead-letter file or the spool, none lost; the replay command and the next start write them once it is up', async () => {
    const stub = await startStubUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'down-'));
    const file = join(dir, 'dead.jsonl');
    const spool = join(dir, 'spool');
    const table = `activity_log_down_${randomBytes(4).toString('hex')}`;
    const env = {
      ACTIVITY_LOG_TABLE: table,
      ACTIVITY_LOG_DEAD_LETTER: file,
      ACTIVITY_LOG_SPOOL: spool,
      ACTIVITY_LOG_QUEUE_MAX: '3',
      SHUTDOWN_TIMEOUT_MS: '4000',
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: TOKEN,
      SESSION_KEYS: SESSION_KEY,
      DEV_LOGIN: '1',
    };
    const server = await startProcess({ ...env, ACTIVITY_LOG_URL: `postgres://postgres@127.0.0.1:${await freePort()}/never` });
    try {
      const cookie = cookieHeader(
        await fetch(`${server.url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: '7', name: 'Ana' }) }),
      );
      // 3 fit in the queue; 2 more spill over into the file at once; the 3 stay in the spool at the stop.
      for (const id of ['1', '2', '3', '4', '5']) {
        await expectAnswer(
          await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id, field: `f${id}` }), headers: { cookie } }),
          200,
          '{"ok":true}',
        );
      }
      const started = Date.now();
      server.child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => server.child.once('exit', (exitCode) => resolve(exitCode)));
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(4_000);
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const setAside = lines.map((line) => JSON.parse(line) as { code: string; entry: { entityId: string } });
      expect(setAside.map((line) => line.entry.entityId).sort()).toEqual(['4', '5']);
      expect(setAside.map((line) => line.code)).toEqual(['QUEUE_FULL', 'QUEUE_FULL']);
      expect(server.output()).toContain('"spilled":2');
      expect(server.output()).toContain('"leftInSpool":3');
      expect(server.output()).not.toMatch(/"lost":[1-9]/);

      const replayed = await replay({ ACTIVITY_LOG_URL: urls.postgres ?? '', ACTIVITY_LOG_TABLE: table }, file);
      expect(replayed).toMatchObject({ code: 0 });
      expect(replayed.output).toContain('2 written, 0 still refused');
      const next = await startProcess({ ...env, ACTIVITY_LOG_URL: urls.postgres ?? '' });
      next.child.kill('SIGTERM');
      expect(await new Promise<number | null>((resolve) => next.child.once('exit', (exitCode) => resolve(exitCode)))).toBe(0);
      expect(next.output()).toContain('"adopted":3,"unreadable":0');
      const reader = await openSqlActivityLogStore(urls.postgres ?? '', { table });
      const stored = await reader.recent(10);
      await reader.close();
      expect(stored.map((row) => row.entity_id).sort()).toEqual(['1', '2', '3', '4', '5']);
    } finally {
      await stub.close();
      await dropTable(urls.postgres ?? '', table);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
