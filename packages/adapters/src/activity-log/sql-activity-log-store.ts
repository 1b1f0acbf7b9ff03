import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely';
import type { ActivityEntry } from '@cotizaciones/core';
import { sqlEngineOf, type SqlEngine } from './activity-log-url.js';
import { toStoredActivity, type ReadableActivityLogStore, type StoredActivity } from './activity-log-store.js';

export interface SqlActivityLogStore extends ReadableActivityLogStore {
  readonly engine: SqlEngine;
  readonly table: string;
}

/** A column value as the three drivers return them. */
type Cell = string | number | bigint | Date | null;
type Row = { [K in keyof StoredActivity | 'id']: Cell };
type Database = Record<string, Row>;

const COLUMNS = `
  module VARCHAR(64) NOT NULL,
  event_key VARCHAR(128) NOT NULL,
  description TEXT NOT NULL,
  entity_type VARCHAR(64) NOT NULL,
  entity_id BIGINT NOT NULL,
  details TEXT NULL,
  user_id VARCHAR(64) NOT NULL,
  request_id VARCHAR(128) NULL,
  client_ip VARCHAR(64) NULL,
  user_agent TEXT NULL`;

// The id and the timestamp are the only columns whose type differs by engine.
const KEY_AND_TIME: Record<SqlEngine, string> = {
  sqlite: 'id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,',
  postgres: 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL,',
  mysql: 'id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(3) NOT NULL,',
};

/**
 * The activity log in SQLite (`sqlite:<file>`), PostgreSQL (`postgres://…`) or
 * MySQL/MariaDB (`mysql://…`), through Kysely. Creates the table when missing.
 */
export interface SqlStoreOptions {
  readonly table?: string | undefined;
  /** Told when a pooled connection fails outside a query (the server went away). */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
}

export async function openSqlActivityLogStore(url: string, options: SqlStoreOptions = {}): Promise<SqlActivityLogStore> {
  const engine = sqlEngineOf(url);
  if (!engine) throw new Error(`not an SQL activity log URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  const table = options.table ?? 'activity_log';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(table)) throw new Error(`invalid table name: ${table}`);

  const db = new Kysely<Database>({ dialect: await dialectFor(engine, url, options) });
  try {
    await sql.raw(`CREATE TABLE IF NOT EXISTS ${table} (${KEY_AND_TIME[engine]}${COLUMNS})`).execute(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }

  return {
    engine,
    table,
    async write(entries) {
      if (entries.length === 0) return;
      await db.executeQuery(insertStatement(engine, table, entries));
    },
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async recent(limit) {
      const rows = await db.selectFrom(table).selectAll().orderBy('id', 'desc').limit(limit).execute();
      return rows.map(fromRow);
    },
    close: () => db.destroy(),
  };
}

const INSERT_COLUMNS = [
  'created_at',
  'module',
  'event_key',
  'description',
  'entity_type',
  'entity_id',
  'details',
  'user_id',
  'request_id',
  'client_ip',
  'user_agent',
] as const satisfies ReadonlyArray<keyof StoredActivity>;

/**
 * One multi-row INSERT with bound parameters, written directly: the query
 * builder would rebuild a tree of 11 values per row for every batch.
 */
function insertStatement(engine: SqlEngine, table: string, entries: readonly ActivityEntry[]): CompiledQuery {
  const parameters: unknown[] = [];
  const tuples = entries.map((entry) => {
    const row = toStoredActivity(entry);
    const placeholders = INSERT_COLUMNS.map((column) => {
      // PostgreSQL and MySQL take a Date for their timestamp columns; SQLite keeps ISO text.
      parameters.push(column === 'created_at' && engine !== 'sqlite' ? entry.createdAt : row[column]);
      return engine === 'postgres' ? `$${parameters.length}` : '?';
    });
    return `(${placeholders.join(', ')})`;
  });
  return CompiledQuery.raw(`INSERT INTO ${table} (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, parameters);
}

async function dialectFor(engine: SqlEngine, url: string, options: SqlStoreOptions): Promise<Dialect> {
  switch (engine) {
    case 'sqlite': {
      const { default: SQLite } = await import('better-sqlite3');
      const file = url.slice('sqlite:'.length);
      if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
      const database = new SQLite(file);
      database.pragma('journal_mode = WAL');
      // The driver is synchronous: waiting for a lock would stall every request. Fail fast; the writer retries.
      database.pragma('busy_timeout = 20');
      // WAL + NORMAL: a commit does not wait for fsync (the driver is synchronous: fsync would stall the event loop); a power cut may lose the last commits, a crash of the process does not.
      database.pragma('synchronous = NORMAL');
      database.defaultSafeIntegers(true);
      return new SqliteDialect({ database });
    }
    case 'postgres': {
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      // An idle connection the server drops is reported here; unheard, the 'error' event would end the process.
      pool.on('error', (error) => options.onConnectionError?.(error));
      return new PostgresDialect({ pool });
    }
    case 'mysql': {
      const { createPool } = await import('mysql2');
      const uri = url.replace(/^mariadb:/, 'mysql:');
      // Dates travel as UTC; BIGINTs come back as exact strings.
      // mysql2's pool drops a broken idle connection by itself (it emits no pool-level 'error').
      return new MysqlDialect({
        pool: createPool({ uri, connectionLimit: 4, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: true }),
      });
    }
  }
}

function fromRow(row: Row): StoredActivity {
  const text = (value: Cell) => (value === null ? null : String(value));
  const createdAt = row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at);
  return {
    created_at: createdAt,
    module: String(row.module),
    event_key: String(row.event_key),
    description: String(row.description),
    entity_type: String(row.entity_type),
    entity_id: String(row.entity_id),
    details: text(row.details),
    user_id: String(row.user_id),
    request_id: text(row.request_id),
    client_ip: text(row.client_ip),
    user_agent: text(row.user_agent),
  };
}
