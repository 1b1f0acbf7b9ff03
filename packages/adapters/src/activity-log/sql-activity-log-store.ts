import { sqlEngineOf } from './activity-log-url.js';
import type { SqlActivityLogStore, SqlStoreOptions } from './activity-log-store.js';
import { checkedTableName } from './activity-log-schema.js';
import { openSqliteActivityLogStore } from './sqlite-activity-log-store.js';

export type { SqlActivityLogStore } from './activity-log-store.js';

/**
 * The activity log in SQLite (`sqlite:<file>`, written by a worker thread),
 * PostgreSQL (`postgres://…`) or MySQL/MariaDB (`mysql://…`, through Kysely).
 * Creates the table when missing. A failed write throws an {@link ActivityStoreError}
 * saying whether the store refused the entries or could not be reached.
 */
export async function openSqlActivityLogStore(url: string, options: SqlStoreOptions = {}): Promise<SqlActivityLogStore> {
  const engine = sqlEngineOf(url);
  if (!engine) throw new Error(`not an SQL activity log URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  const table = checkedTableName(options.table);
  if (engine === 'sqlite') return openSqliteActivityLogStore(url.slice('sqlite:'.length), table);
  // Loaded on demand: Kysely is some 260 modules that a process on SQLite would load for nothing.
  const { openServerActivityLogStore } = await import('./server-activity-log-store.js');
  return openServerActivityLogStore(engine, url, table, options);
}
