import { CompiledQuery, Kysely, sql } from 'kysely';
import type { ActivityEntry } from '@cotizaciones/core';
import { sqlDialect, type ServerEngine } from '../sql-dialect.js';
import { toStoredActivity, type SqlActivityLogStore } from './activity-log-store.js';
import { INSERT_COLUMNS, createTableSql, fromRow, type Row } from './activity-log-schema.js';
import { storeError, urlSecrets } from './activity-store-error.js';
import { isMysqlColumnError, isMysqlRefusal, isPostgresColumnError, isPostgresRefusal } from './sql-error-kinds.js';
import type { SqlStoreOptions } from './activity-log-store.js';
import { currentTableLimits, type CurrentTableLimits } from './current-table-limits.js';
import { readTableLimits } from './table-limits.js';

/** Request ids looked up in one statement. */
const LOOKUP_BATCH = 500;
/** How old the table's limits may be before a refusal reads them again (see currentTableLimits). */
const LIMITS_MAX_AGE_MS = 60_000;

type Database = Record<string, Row>;
/** The activity log in PostgreSQL or MySQL/MariaDB through Kysely, `table` already checked. */
export async function openServerActivityLogStore(
  engine: ServerEngine,
  url: string,
  table: string,
  options: SqlStoreOptions,
): Promise<SqlActivityLogStore> {
  const db = new Kysely<Database>({
    dialect: await sqlDialect(engine, url, { maxConnections: 4, onConnectionError: options.onConnectionError }),
  });
  const isRefused = engine === 'postgres' ? isPostgresRefusal : isMysqlRefusal;
  const secrets = urlSecrets(url);
  // The driver's error is translated, never passed on: mysql2's carries the SQL with its values; and its
  // message is printed, so the URL's password is taken out of it.
  const translated = async <T>(operation: Promise<T>): Promise<T> => {
    try {
      return await operation;
    } catch (error) {
      throw storeError(error, isRefused, secrets);
    }
  };
  let maxBatchBytes: number;
  let limits: CurrentTableLimits;
  try {
    await translated(sql.raw(createTableSql(engine, table)).execute(db));
    maxBatchBytes = await batchBytesOf(engine, db);
    limits = await translated(
      currentTableLimits(() => readTableLimits(engine, db, table), {
        isColumnError: engine === 'postgres' ? isPostgresColumnError : isMysqlColumnError,
        maxAgeMs: options.limitsMaxAgeMs ?? LIMITS_MAX_AGE_MS,
      }),
    );
  } catch (error) {
    await db.destroy();
    throw error;
  }

  return {
    engine,
    table,
    async write(entries) {
      if (entries.length === 0) return;
      try {
        await db.executeQuery(insertStatement(engine, table, entries, (value) => limits.userAgent(value)));
      } catch (error) {
        limits.writeFailed(error);
        throw storeError(error, isRefused, secrets);
      }
    },
    refusalOf: (entry) => limits.refusalOf(entry),
    maxBatchBytes: () => maxBatchBytes,
    async ping() {
      await translated(sql`SELECT 1`.execute(db));
    },
    async recent(limit) {
      const rows = await translated(db.selectFrom(table).selectAll().orderBy('id', 'desc').limit(limit).execute());
      return rows.map(fromRow);
    },
    async storedRequestIds(requestIds) {
      const found = new Set<string>();
      // Bounded statements: each batch of ids is its own query.
      for (let i = 0; i < requestIds.length; i += LOOKUP_BATCH) {
        const ids = requestIds.slice(i, i + LOOKUP_BATCH);
        const rows = await translated(db.selectFrom(table).select('request_id').where('request_id', 'in', ids).execute());
        for (const row of rows) if (row.request_id !== null) found.add(String(row.request_id));
      }
      return found;
    },
    async close() {
      await limits.settled();
      await db.destroy();
    },
  };
}

/**
 * What one INSERT may carry. MySQL/MariaDB refuse a statement past `max_allowed_packet` (asked at
 * connect; a statement past it fails as a lost connection, not as a refusal); mysql2 sends values
 * escaped into the text, which can double them, hence half. PostgreSQL takes up to 1 GiB a message
 * and 65 535 bound parameters a statement (11 a row: the writer's 500 rows a batch are 5 500).
 */
async function batchBytesOf(engine: ServerEngine, db: Kysely<Database>): Promise<number> {
  if (engine === 'postgres') return POSTGRES_BATCH_BYTES;
  const { rows } = await sql<{ packet: number | string }>`SELECT @@max_allowed_packet AS packet`.execute(db);
  const packet = Number(rows[0]?.packet ?? 0);
  return Math.max(MIN_BATCH_BYTES, Math.floor(packet / 2) - STATEMENT_OVERHEAD_BYTES);
}

const POSTGRES_BATCH_BYTES = 64 * 1024 * 1024;
const MIN_BATCH_BYTES = 64 * 1024;
/** The statement's own text and each row's separators, beside the values. */
const STATEMENT_OVERHEAD_BYTES = 64 * 1024;

/**
 * One multi-row INSERT with bound parameters, written directly: the query
 * builder would rebuild a tree of 11 values per row for every batch.
 */
function insertStatement(
  engine: ServerEngine,
  table: string,
  entries: readonly ActivityEntry[],
  fittedUserAgent: (value: string | null) => string | null,
): CompiledQuery {
  const parameters: unknown[] = [];
  const tuples = entries.map((entry) => {
    const row = toStoredActivity(entry);
    const placeholders = INSERT_COLUMNS.map((column) => {
      // The timestamp columns take a Date (TIMESTAMPTZ, DATETIME(3) in UTC).
      // The user agent is cut to its column's width rather than refused.
      parameters.push(column === 'created_at' ? entry.createdAt : column === 'user_agent' ? fittedUserAgent(row.user_agent) : row[column]);
      return engine === 'postgres' ? `$${parameters.length}` : '?';
    });
    return `(${placeholders.join(', ')})`;
  });
  return CompiledQuery.raw(`INSERT INTO ${table} (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, parameters);
}
