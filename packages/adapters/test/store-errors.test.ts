import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMysqlRefusal, isPostgresRefusal, isSqliteRefusal } from '../src/activity-log/sql-error-kinds.js';
import { openSqliteReadOnly, SQLite } from '../src/activity-log/sqlite-driver.js';

// The real databases' refusals are exercised in activity-log-refusals.int.test.ts; these are the codes
// that cannot be produced there on demand (a server shutting down, a lock, a lost connection).
describe('which store errors are refusals (set aside) and which are retried', () => {
  it('PostgreSQL: SQLSTATE classes 22, 23 and 54 are refusals; connection, resource and shutdown errors are not', () => {
    for (const code of ['22001', '22021', '22P02', '23502', '23505', '54000']) expect(isPostgresRefusal({ code }), code).toBe(true);
    for (const code of [
      '08006',
      '08001',
      '57P01',
      '57P03',
      '53300',
      '53100',
      '40001',
      '40P01',
      '42P01',
      'XX000',
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
    ]) {
      expect(isPostgresRefusal({ code }), code).toBe(false);
    }
    expect(isPostgresRefusal(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('MySQL/MariaDB: data errors by number are refusals; connection errors, lock waits and deadlocks are not', () => {
    for (const errno of [1406, 1366, 1048, 1264, 1153, 1062, 4025])
      expect(isMysqlRefusal({ errno, sqlState: 'HY000' }), String(errno)).toBe(true);
    expect(isMysqlRefusal({ errno: 9999, sqlState: '22007' })).toBe(true);
    for (const error of [
      { errno: -111, code: 'ECONNREFUSED', fatal: true },
      { code: 'PROTOCOL_CONNECTION_LOST', fatal: true },
      { errno: 1205, sqlState: 'HY000' }, // lock wait timeout
      { errno: 1213, sqlState: '40001' }, // deadlock
      { errno: 1040, sqlState: '08004' }, // too many connections
      { errno: 1146, sqlState: '42S02' }, // table missing
    ]) {
      expect(isMysqlRefusal(error), JSON.stringify(error)).toBe(false);
    }
  });

  it('SQLite: TOOBIG and constraints are refusals; BUSY, LOCKED, FULL, IOERR are not', () => {
    for (const code of ['SQLITE_TOOBIG', 'SQLITE_CONSTRAINT_NOTNULL', 'SQLITE_MISMATCH']) expect(isSqliteRefusal(code), code).toBe(true);
    for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'UNKNOWN'])
      expect(isSqliteRefusal(code), code).toBe(false);
  });
});

// The codes above are the driver's own: here the driver produces them.
describe('the SQLite driver names its errors with the codes isSqliteRefusal reads', () => {
  const codeOf = (action: () => unknown): string => {
    try {
      action();
    } catch (error) {
      return error instanceof SQLite.SqliteError ? error.code : `not a SqliteError: ${String(error)}`;
    }
    return 'no error';
  };

  it('a value a column refuses is a refusal; a file locked by another connection is not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-codes-'));
    const file = join(dir, 'codes.db');
    const db = new SQLite(file);
    const other = new SQLite(file);
    try {
      db.exec('CREATE TABLE t (v TEXT NOT NULL CHECK (length(v) < 4), k TEXT UNIQUE)');
      const refused = [
        codeOf(() => db.prepare('INSERT INTO t (v) VALUES (?)').run([null])),
        codeOf(() => db.prepare('INSERT INTO t (v) VALUES (?)').run(['too long'])),
        codeOf(() => db.exec("INSERT INTO t (v, k) VALUES ('a', 'x'); INSERT INTO t (v, k) VALUES ('b', 'x')")),
      ];
      expect(refused).toEqual(['SQLITE_CONSTRAINT_NOTNULL', 'SQLITE_CONSTRAINT_CHECK', 'SQLITE_CONSTRAINT_UNIQUE']);
      for (const code of refused) expect(isSqliteRefusal(code), code).toBe(true);
      other.exec('BEGIN EXCLUSIVE');
      const busy = codeOf(() => db.prepare("INSERT INTO t (v) VALUES ('c')").run());
      other.exec('COMMIT');
      expect(busy).toMatch(/^SQLITE_BUSY/);
      expect(isSqliteRefusal(busy)).toBe(false);
    } finally {
      db.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opening read-only: a missing file is an error, not a new empty database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-ro-'));
    try {
      expect(() => openSqliteReadOnly(join(dir, 'missing.db'))).toThrow(/no SQLite file/);
      expect(existsSync(join(dir, 'missing.db'))).toBe(false);
      const db = new SQLite(join(dir, 'present.db'));
      db.exec('CREATE TABLE t (v TEXT)');
      db.close();
      const reader = openSqliteReadOnly(join(dir, 'present.db'));
      expect(codeOf(() => reader.exec("INSERT INTO t VALUES ('x')"))).toBe('SQLITE_READONLY');
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
