import { existsSync } from 'node:fs';
import type { SqlEngine } from '../activity-log/activity-log-url.js';
import { describeError, urlSecrets } from '../activity-log/activity-store-error.js';
import { mysqlPool, postgresPool } from '../sql-dialect.js';
import type { PdoSavePath } from './pdo-table.js';

/** A row as the driver gives it: column values by alias. */
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * The session table's database, through the service's own drivers: statements with `?` placeholders
 * and bound values only. A failure is a `SqlFailure`, without the driver's error (mysql2's carries the
 * SQL with its values, which hold the session id).
 */
export interface SqlConnection {
  readonly engine: SqlEngine;
  query(statement: string, values: readonly unknown[]): Promise<SqlRow[]>;
  /** The first row, if any. */
  first(statement: string, values: readonly unknown[]): Promise<SqlRow | undefined>;
  /** Rows changed. */
  execute(statement: string, values: readonly unknown[]): Promise<number>;
  close(): Promise<void>;
}

export class SqlFailure extends Error {
  override readonly name = 'SqlFailure';
}

export interface ConnectionOptions {
  /** A statement that takes longer fails (its connection is left to finish it): 503, not a hung request. */
  readonly statementTimeoutMs: number;
  /** SQLite: how long a statement waits for another process's write lock, in short steps off the event loop. */
  readonly lockWaitMs: number;
  readonly onConnectionError?: ((error: Error) => void) | undefined;
}

/** Connections a session table's pool may open: reads are per request, each one short. */
const POOL_CONNECTIONS = 8;

export async function sqlConnection(where: PdoSavePath, options: ConnectionOptions): Promise<SqlConnection> {
  return where.engine === 'sqlite' ? sqliteConnection(where.url, options) : serverConnection(where, options);
}

/**
 * PostgreSQL or MySQL/MariaDB over the activity log's pools, without its query builder: each statement
 * is prepared once per connection (pg's named statements, mysql2's `execute`), a session read being the
 * same few statements over and over.
 */
async function serverConnection({ engine, url }: PdoSavePath, options: ConnectionOptions): Promise<SqlConnection> {
  const secrets = urlSecrets(url);
  const pool = { maxConnections: POOL_CONNECTIONS, onConnectionError: options.onConnectionError };
  let send: (statement: string, values: unknown[]) => Promise<{ rows: SqlRow[]; changed: number }>;
  let end: () => Promise<void>;
  if (engine === 'postgres') {
    const pg = await postgresPool(url, pool);
    // PostgreSQL numbers its placeholders; the statements here hold no other `?` (identifiers are checked).
    const names = new Map<string, { name: string; text: string }>();
    send = async (statement, values) => {
      let named = names.get(statement);
      if (!named) {
        let n = 0;
        names.set(statement, (named = { name: `php_session_${names.size}`, text: statement.replace(/\?/g, () => `$${++n}`) }));
      }
      const result = await pg.query<SqlRow>({ ...named, values });
      return { rows: result.rows, changed: result.rowCount ?? 0 };
    };
    end = () => pg.end();
  } else {
    const mysql = (await mysqlPool(url, pool)).promise();
    send = async (statement, values) => {
      const [result] = await mysql.execute(statement, values as Parameters<typeof mysql.execute>[1]);
      return Array.isArray(result)
        ? { rows: result as SqlRow[], changed: 0 }
        : { rows: [], changed: (result as { affectedRows: number }).affectedRows };
    };
    end = () => mysql.end();
  }
  async function run(statement: string, values: readonly unknown[]) {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        send(statement, [...values]),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new SqlFailure(`no answer within ${options.statementTimeoutMs} ms`)), options.statementTimeoutMs);
        }),
      ]);
    } catch (error) {
      throw failure(error, secrets);
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    engine,
    query: async (statement, values) => (await run(statement, values)).rows,
    first: async (statement, values) => (await run(statement, values)).rows[0],
    execute: async (statement, values) => (await run(statement, values)).changed,
    close: end,
  };
}

/**
 * A SQLite file the PHP app writes, opened in process (libsql, as the activity log's worker): a session
 * read is one indexed row. A statement meeting PHP's write lock does not wait on the event loop: it is
 * tried again in short steps, within `lockWaitMs`. The file is never created: PHP's app makes it.
 */
async function sqliteConnection(file: string, options: ConnectionOptions): Promise<SqlConnection> {
  const { SQLite } = await import('../activity-log/sqlite-driver.js');
  type Database = InstanceType<typeof SQLite>;
  let db: Database | undefined;
  // A handful of statements, each prepared once.
  const prepared = new Map<string, ReturnType<Database['prepare']>>();
  const statementOf = (db: Database, text: string) => {
    let statement = prepared.get(text);
    if (!statement) prepared.set(text, (statement = db.prepare(text)));
    return statement;
  };
  const open = (): Database => {
    if (db) return db;
    if (!existsSync(file)) throw new SqlFailure(`no SQLite file at ${file}`);
    const opened = new SQLite(file);
    // A few ms on the event loop at most; past that, the retry below.
    opened.pragma('busy_timeout = 5');
    return (db = opened);
  };
  async function run<T>(step: (db: Database) => T): Promise<T> {
    const deadline = performance.now() + options.lockWaitMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        return step(open());
      } catch (error) {
        const { code } = describeError(error);
        if (!/^SQLITE_(BUSY|LOCKED)/.test(code) || performance.now() >= deadline) throw failure(error, []);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
  return {
    engine: 'sqlite',
    query: (statement, values) => run((db) => statementOf(db, statement).all([...values]) as SqlRow[]),
    // `get` reads one row, without the row iterator `all` goes through.
    first: (statement, values) => run((db) => statementOf(db, statement).get([...values]) as SqlRow | undefined),
    execute: (statement, values) => run((db) => statementOf(db, statement).run([...values]).changes),
    close() {
      prepared.clear();
      db?.close();
      db = undefined;
      return Promise.resolve();
    },
  };
}

/** The driver's code and message (no password; bounded), not its error object. */
function failure(error: unknown, secrets: readonly string[]): SqlFailure {
  if (error instanceof SqlFailure) return error;
  const { code, message } = describeError(error);
  const told = secrets.reduce((text, secret) => text.replaceAll(secret, '***'), message);
  return new SqlFailure(`${code === 'UNKNOWN' ? '' : `${code}: `}${told.length > 300 ? `${told.slice(0, 300)}…` : told}`);
}
