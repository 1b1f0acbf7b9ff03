import type { ReadableActivityLogStore } from './activity-log-store.js';
import { bufferedActivityLog, type BufferedActivityLog, type BufferedActivityLogOptions } from './buffered-activity-log.js';
import { inMemoryActivityLogStore } from './in-memory-activity-log-store.js';
import { openSqlActivityLogStore, sqlEngineOf } from './sql-activity-log-store.js';

export interface OpenedActivityLog {
  readonly log: BufferedActivityLog;
  readonly store: ReadableActivityLogStore;
  /** `memory`, `sqlite`, `postgres` or `mysql`. */
  readonly engine: string;
}

/** Whether `url` names a supported store: `memory:`, `sqlite:<file>`, `postgres://…`, `mysql://…`. */
export function isActivityLogUrl(url: string): boolean {
  return url === 'memory:' || sqlEngineOf(url) !== undefined;
}

/** The buffered activity log over the store `url` names. */
export async function openActivityLog(
  url: string,
  options: BufferedActivityLogOptions & { table?: string } = {},
): Promise<OpenedActivityLog> {
  const { table, ...buffering } = options;
  const store =
    url === 'memory:' ? inMemoryActivityLogStore() : await openSqlActivityLogStore(url, table ? { table } : {});
  const engine = 'engine' in store ? String(store.engine) : 'memory';
  return { log: bufferedActivityLog(store, buffering), store, engine };
}
