import { describe, expect, it } from 'vitest';
import { isMysqlRefusal, isPostgresRefusal, isSqliteRefusal } from '../src/activity-log/sql-error-kinds.js';

// The real databases' refusals are exercised in activity-log-refusals.test.ts; these are the codes
// that cannot be produced there on demand (a server shutting down, a lock, a lost connection).
describe('which store errors are refusals (set aside) and which are retried', () => {
  it('PostgreSQL: SQLSTATE classes 22, 23 and 54 are refusals; connection, resource and shutdown errors are not', () => {
    for (const code of ['22001', '22021', '22P02', '23502', '23505', '54000']) expect(isPostgresRefusal({ code }), code).toBe(true);
    for (const code of ['08006', '08001', '57P01', '57P03', '53300', '53100', '40001', '40P01', '42P01', 'XX000', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']) {
      expect(isPostgresRefusal({ code }), code).toBe(false);
    }
    expect(isPostgresRefusal(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('MySQL/MariaDB: data errors by number are refusals; connection errors, lock waits and deadlocks are not', () => {
    for (const errno of [1406, 1366, 1048, 1264, 1153, 1062, 4025]) expect(isMysqlRefusal({ errno, sqlState: 'HY000' }), String(errno)).toBe(true);
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
    for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'UNKNOWN']) expect(isSqliteRefusal(code), code).toBe(false);
  });
});
