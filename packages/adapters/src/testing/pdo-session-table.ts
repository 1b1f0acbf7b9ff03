import { randomBytes } from 'node:crypto';
import { sqlConnection, type SqlConnection } from '../php-session/pdo-connection.js';
import type { SqlEngine } from '../activity-log/activity-log-url.js';
import { phpFixtures } from './php-server.js';

/** Symfony PdoSessionHandler's schema per engine, as its documentation gives it. */
const SCHEMA: Record<SqlEngine, (table: string) => string> = {
  mysql: (table) =>
    `CREATE TABLE ${table} (sess_id VARBINARY(128) NOT NULL PRIMARY KEY, sess_data MEDIUMBLOB NOT NULL, sess_lifetime INTEGER UNSIGNED NOT NULL, sess_time INTEGER UNSIGNED NOT NULL, INDEX ${table}_expiry (sess_lifetime)) COLLATE utf8mb4_bin, ENGINE = InnoDB`,
  postgres: (table) =>
    `CREATE TABLE ${table} (sess_id VARCHAR(128) NOT NULL PRIMARY KEY, sess_data BYTEA NOT NULL, sess_lifetime INTEGER NOT NULL, sess_time INTEGER NOT NULL)`,
  sqlite: (table) =>
    `CREATE TABLE ${table} (sess_id TEXT NOT NULL PRIMARY KEY, sess_data BLOB NOT NULL, sess_lifetime INTEGER NOT NULL, sess_time INTEGER NOT NULL)`,
};

export interface PdoSessionTable {
  readonly engine: SqlEngine;
  readonly table: string;
  /** `PHP_SESSION_SAVE_PATH` for it. */
  readonly savePath: string;
  /**
   * PHP's ini for a PHP app keeping its sessions there: pdo-handler.php (a SessionHandlerInterface over PDO)
   * prepended to every script, with the DSN, credentials and table it reads (`pdo_session.*`).
   */
  readonly phpIni: Record<string, string>;
  insert(id: string, data: Uint8Array | string, lifetime: number, time: number): Promise<void>;
  row(id: string): Promise<{ data: Buffer; lifetime: number; time: number } | undefined>;
  /** Every row, ordered by id. */
  rows(): Promise<Array<{ id: string; data: Buffer; lifetime: number; time: number }>>;
  /** Runs a statement of the test's own (an ALTER). */
  execute(statement: string): Promise<void>;
  /** Sets a row's lifetime and time columns. */
  setTimes(id: string, lifetime: number, time: number): Promise<void>;
  drop(): Promise<void>;
}

/**
 * A session table of Symfony's schema under a unique name, in the test database of `engine` (for
 * SQLite, in `sqliteFile`), dropped by `drop()`.
 */
export async function pdoSessionTable(engine: SqlEngine, where: string): Promise<PdoSessionTable> {
  const table = `php_sessions_${randomBytes(4).toString('hex')}`;
  const savePath = engine === 'sqlite' ? `sqlite:${where}` : where;
  if (engine === 'sqlite') {
    // The file the PHP app would have made.
    const { SQLite } = await import('../activity-log/sqlite-driver.js');
    new SQLite(where).close();
  }
  const db: SqlConnection = await sqlConnection({ engine, url: where }, { statementTimeoutMs: 10_000, lockWaitMs: 10_000 });
  await db.execute(SCHEMA[engine](table), []);
  return {
    engine,
    table,
    savePath,
    phpIni: { auto_prepend_file: `${phpFixtures}pdo-handler.php`, 'pdo_session.table': table, ...phpDsn(engine, where) },
    async insert(id, data, lifetime, time) {
      await db.execute(`INSERT INTO ${table} (sess_id, sess_data, sess_lifetime, sess_time) VALUES (?, ?, ?, ?)`, [
        id,
        Buffer.from(data),
        lifetime,
        time,
      ]);
    },
    async row(id) {
      const [row] = await db.query(`SELECT sess_data AS d, sess_lifetime AS l, sess_time AS t FROM ${table} WHERE sess_id = ?`, [id]);
      return (
        row && {
          data: Buffer.from(row['d'] as Uint8Array) /* libsql: an ArrayBuffer */,
          lifetime: Number(row['l']),
          time: Number(row['t']),
        }
      );
    },
    async rows() {
      const rows = await db.query(
        `SELECT sess_id AS i, sess_data AS d, sess_lifetime AS l, sess_time AS t FROM ${table} ORDER BY sess_id`,
        [],
      );
      return rows.map((row) => ({
        id: String(row['i']),
        data: Buffer.from(row['d'] as Uint8Array),
        lifetime: Number(row['l']),
        time: Number(row['t']),
      }));
    },
    async execute(statement) {
      await db.execute(statement, []);
    },
    async setTimes(id, lifetime, time) {
      await db.execute(`UPDATE ${table} SET sess_lifetime = ?, sess_time = ? WHERE sess_id = ?`, [lifetime, time, id]);
    },
    async drop() {
      try {
        await db.execute(`DROP TABLE IF EXISTS ${table}`, []);
      } finally {
        await db.close();
      }
    },
  };
}

function phpDsn(engine: SqlEngine, where: string): Record<string, string> {
  if (engine === 'sqlite') return { 'pdo_session.dsn': `sqlite:${where}` };
  const url = new URL(where);
  const port = url.port ? `;port=${url.port}` : '';
  return {
    'pdo_session.dsn': `${engine === 'postgres' ? 'pgsql' : 'mysql'}:host=${url.hostname}${port};dbname=${url.pathname.slice(1)}`,
    'pdo_session.user': decodeURIComponent(url.username),
    'pdo_session.password': decodeURIComponent(url.password),
  };
}
