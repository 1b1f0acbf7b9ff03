import type { ReadableActivityLogStore } from './activity-log-store.js';
import { bufferedActivityLog, type BufferedActivityLog, type BufferedActivityLogOptions } from './buffered-activity-log.js';
import { inMemoryActivityLogStore } from './in-memory-activity-log-store.js';
import type { SqlStoreOptions } from './sql-activity-log-store.js';

export interface OpenedActivityLog {
  readonly log: BufferedActivityLog;
  readonly store: ReadableActivityLogStore;
  /** `memory`, `sqlite`, `postgres` or `mysql`. */
  readonly engine: string;
}

/** The buffered activity log over the store `url` names. */
export async function openActivityLog(
  url: string,
  options: BufferedActivityLogOptions & { table?: string; onConnectionError?: (error: Error) => void } = {},
): Promise<OpenedActivityLog> {
  const { table, onConnectionError, ...buffering } = options;
  const store = url === 'memory:' ? inMemoryActivityLogStore() : await openSql(url, { table, onConnectionError });
  return { log: bufferedActivityLog(store, buffering), store, engine: 'engine' in store ? String(store.engine) : 'memory' };
}

async function openSql(url: string, options: SqlStoreOptions): Promise<ReadableActivityLogStore> {
  // Loaded on demand: Kysely and the database drivers are tens of MB a process need not carry.
  const { openSqlActivityLogStore } = await import('./sql-activity-log-store.js');
  return openSqlActivityLogStore(url, options);
}
