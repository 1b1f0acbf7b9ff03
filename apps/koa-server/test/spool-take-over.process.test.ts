import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missing, openSqliteReadOnly } from '@cotizaciones/adapters/testing';
import { MAIN, startProcess } from './support/process.js';
import { until } from './support/until.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'spool-take-over-'));
  dirs.push(dir);
  return dir;
};

/** A spool line as a killed process leaves it: an entry of a change, its request id `req-<id>`. */
const entryLine = (id: number, clientIp = '127.0.0.1') =>
  `${JSON.stringify({
    e: {
      createdAt: '2026-03-04T05:06:07.089Z',
      module: 'Cotizaciones',
      eventKey: 'cotizaciones.update',
      description: `Actualizó la cotización #${id}`,
      entityType: 'cotizacion',
      entityId: String(id),
      details: { field: 'estado' },
      userId: '7',
      requestId: `req-${id}`,
      clientIp,
      userAgent: 'test',
    },
  })}\n`;
const segment = (n: number) => `${String(n).padStart(15, '0')}-000000000000.spool`;

const rowsOf = (db: string) => {
  if (!existsSync(db)) return [] as number[];
  const reader = openSqliteReadOnly(db);
  try {
    return (reader.prepare('SELECT entity_id FROM activity_log').all() as Array<{ entity_id: number | bigint }>).map((row) =>
      Number(row.entity_id),
    );
  } catch {
    return [];
  } finally {
    reader.close();
  }
};

describe('the spool take-over at start (the built server)', () => {
  it('a FIFO, a directory and a link named *.spool, a segment of a later format and a planted entry: the start succeeds, counts them, cuts no link target, keeps the later segment, and writes only the entries that pass the checks', async () => {
    const dir = scratch();
    const spool = join(dir, 'spool');
    const db = join(dir, 'activity.db');
    const deadLetter = join(dir, 'dead.jsonl');
    mkdirSync(spool);
    writeFileSync(join(spool, segment(1)), `{"spool":2}\n${entryLine(1)}${entryLine(2, 'not-an-ip')}`);
    execFileSync('mkfifo', [join(spool, segment(2))]);
    mkdirSync(join(spool, segment(3)));
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'not a segment\n');
    symlinkSync(target, join(spool, segment(4)));
    const later = '{"spool":3}\n{"entry":{"id":"req-9"}}\n';
    writeFileSync(join(spool, segment(5)), later);

    const server = await startProcess({
      ACTIVITY_LOG_URL: `sqlite:${db}`,
      ACTIVITY_LOG_SPOOL: spool,
      ACTIVITY_LOG_DEAD_LETTER: deadLetter,
    });
    expect(await until(() => rowsOf(db).length >= 1, 20_000)).toBe(true);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await exited;

    expect(server.output()).toContain('"directory":1,"symlink":1,"special":1,"unopenable":0,"unknownFormat":1');
    expect(server.output()).toContain('"failedChecks":1');
    expect(rowsOf(db)).toEqual([1]);
    expect(readFileSync(target, 'utf8')).toBe('not a segment\n');
    expect(readFileSync(join(spool, segment(5)), 'utf8')).toBe(later);
    const setAside = readFileSync(deadLetter, 'utf8').trim().split('\n');
    expect(setAside).toHaveLength(1);
    expect(JSON.parse(setAside[0]!)).toMatchObject({ code: 'FAILED_CHECKS', entry: { requestId: 'req-2', clientIp: 'not-an-ip' } });
  });

  const asNobody = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
  it.skipIf(missing('root and setpriv (the server runs as another user)', asNobody))(
    'a segment a root-run process left, which the server (another user) cannot open: skipped and counted, the start succeeds',
    async () => {
      const dir = scratch();
      chmodSync(dir, 0o777);
      const spool = join(dir, 'spool');
      mkdirSync(spool, { mode: 0o777 });
      chmodSync(spool, 0o777);
      // Root's, owner-only: what `sudo cli …` leaves in a shared spool folder.
      writeFileSync(join(spool, segment(1)), `{"spool":2}\n${entryLine(1)}`, { mode: 0o600 });
      const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, MAIN], {
        env: {
          PATH: process.env.PATH,
          PORT: '0',
          ACTIVITY_LOG_URL: 'memory:',
          ACTIVITY_LOG_SPOOL: spool,
          ACTIVITY_LOG_DEAD_LETTER: join(dir, 'dead.jsonl'),
        },
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(child, 'exit');
      try {
        expect(await until(() => output.includes('"url":"http:') || child.exitCode !== null, 20_000)).toBe(true);
        expect(child.exitCode).toBe(null);
        expect(output).toContain('"unopenable":1');
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      expect(readFileSync(join(spool, segment(1)), 'utf8')).toBe(`{"spool":2}\n${entryLine(1)}`);
    },
  );
});
