import type { Dialect } from 'kysely';
import { MysqlDialect, PostgresDialect } from 'kysely';
import type { Pool as PgPool } from 'pg';
import type { Pool as MysqlPool } from 'mysql2';
import type { SqlEngine } from './activity-log/activity-log-url.js';

/** The engines reached over a connection pool (SQLite is a file opened in process). */
export type ServerEngine = Exclude<SqlEngine, 'sqlite'>;

export interface PoolOptions {
  /** Connections the pool may open. */
  readonly maxConnections: number;
  /** Told when a pooled connection fails outside a query (the server went away). */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
}

/**
 * The pools of the engines' drivers (pg, mysql2) with the settings every store of the service in
 * PostgreSQL or MySQL/MariaDB uses (the activity log, a PHP session table). The drivers are imported
 * only when an engine is chosen.
 */
export async function postgresPool(url: string, options: PoolOptions): Promise<PgPool> {
  const { default: pg } = await import('pg');
  // A connect that hangs (a host that drops packets) fails after 5 s instead of never.
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections, connectionTimeoutMillis: 5_000 });
  // A connection the server drops is reported here; unheard, the 'error' event would end the process.
  // The pool hears its idle connections only: one checked out between two queries (a transaction's,
  // a store's write about to start) is heard by its own listener, for its whole life.
  pool.on('error', (error) => options.onConnectionError?.(error));
  pool.on('connect', (client) => client.on('error', (error) => options.onConnectionError?.(error)));
  return pool;
}

export async function mysqlPool(url: string, options: PoolOptions): Promise<MysqlPool> {
  const { createPool } = await import('mysql2');
  // Dates travel as UTC; BIGINTs come back as exact strings.
  // mysql2's pool drops a broken idle connection by itself (it emits no pool-level 'error').
  return createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: options.maxConnections,
    connectTimeout: 5_000,
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}

/** Kysely's dialect over the engine's pool. */
export async function sqlDialect(engine: ServerEngine, url: string, options: PoolOptions): Promise<Dialect> {
  return engine === 'postgres'
    ? new PostgresDialect({ pool: await postgresPool(url, options) })
    : new MysqlDialect({ pool: await mysqlPool(url, options) });
}
