import type { ReadableActivityLogStore } from './activity-log-store.js';
import { openSpool, type TakeOverReport } from './activity-spool.js';
import { bufferedActivityLog, type BufferedActivityLog, type BufferedActivityLogOptions } from './buffered-activity-log.js';
import { deadLetterFile } from './dead-letter-file.js';
import { deadLetterLine } from './dead-letter-line.js';
import { inMemoryActivityLogStore } from './in-memory-activity-log-store.js';
import { lazyActivityLogStore } from './lazy-activity-log-store.js';
import { sqlEngineOf } from './activity-log-url.js';
import type { SqlStoreOptions } from './activity-log-store.js';

export interface OpenedActivityLog {
  readonly log: BufferedActivityLog;
  readonly store: ReadableActivityLogStore;
  /** `memory`, `sqlite`, `postgres` or `mysql`. */
  readonly engine: string;
}

export interface OpenActivityLogOptions extends Omit<BufferedActivityLogOptions, 'deadLetter' | 'spool'> {
  readonly table?: string;
  /** The dead-letter file (JSON lines) for entries the store refuses. */
  readonly deadLetterFile?: string;
  /** The dead-letter file's bound in bytes (default 64 MiB). */
  readonly deadLetterMaxBytes?: number;
  /** The spool's folder: every entry is appended there before `record` returns. */
  readonly spool?: string;
  /** The spool's bound in bytes (default 256 MiB). */
  readonly spoolMaxBytes?: number;
  /** Take over what stopped processes left in the spool (default true). */
  readonly adoptSpool?: boolean;
  /** Told, at open, what the spool's take-over skipped, found set aside already, or found failing the checks (when any). */
  readonly onSpoolTakeOver?: (report: TakeOverReport) => void;
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * The buffered activity log over the store `url` names. Returns at once: an SQL
 * store connects in the background (see {@link lazyActivityLogStore}) while
 * entries queue (and, with a spool, wait on disk).
 */
export function openActivityLog(url: string, options: OpenActivityLogOptions = {}): OpenedActivityLog {
  const {
    table,
    deadLetterFile: deadLetterPath,
    deadLetterMaxBytes,
    spool: spoolDir,
    spoolMaxBytes,
    adoptSpool,
    onSpoolTakeOver,
    onConnectionError,
    ...buffering
  } = options;
  const store = url === 'memory:' ? inMemoryActivityLogStore() : lazyActivityLogStore(() => openSql(url, { table, onConnectionError }));
  const deadLetter =
    deadLetterPath === undefined
      ? undefined
      : deadLetterFile(deadLetterPath, deadLetterMaxBytes === undefined ? {} : { maxBytes: deadLetterMaxBytes });
  const spool =
    spoolDir === undefined
      ? undefined
      : openSpool(spoolDir, {
          ...(spoolMaxBytes === undefined ? {} : { maxBytes: spoolMaxBytes }),
          adopt: adoptSpool ?? true,
          deadLetterFile: deadLetterPath,
          // Taken-over entries that fail the checks: the only copy, set aside whatever the file's bound (or whole on stderr, as the log sets aside what nothing else takes).
          setAside: (entry, refusal) =>
            deadLetter
              ? deadLetter.append(entry, refusal, { bounded: false })
              : Promise.resolve(void process.stderr.write(deadLetterLine(entry, refusal, new Date()))),
        });
  const report = spool?.takeOver;
  if (report && (Object.values(report.skipped).some((count) => count > 0) || report.failedChecks + report.alreadySetAside > 0))
    onSpoolTakeOver?.(report);
  return { log: bufferedActivityLog(store, { ...buffering, deadLetter, spool }), store, engine: sqlEngineOf(url) ?? 'memory' };
}

async function openSql(url: string, options: SqlStoreOptions): Promise<ReadableActivityLogStore> {
  // Loaded on demand: Kysely and the database drivers are tens of MB a process need not carry.
  const { openSqlActivityLogStore } = await import('./sql-activity-log-store.js');
  return openSqlActivityLogStore(url, options);
}
