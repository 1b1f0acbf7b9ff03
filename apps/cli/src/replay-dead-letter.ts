import { replayCapturedLog, replayDeadLetterFile, sqlEngineOf, type ReplayResult } from '@cotizaciones/adapters';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import type { ActivityLogConfig } from '@cotizaciones/runtime';
import type { ReplayArgs } from './cli-args.js';
import { UsageError } from './usage-error.js';

/**
 * `cotizaciones replay-dead-letter [file] | --from-log <captured log>`: writes the entries of the
 * activity log's dead-letter file (or the dead-letter records of a captured server log) to the store
 * the server's own variables name (ACTIVITY_LOG_URL, ACTIVITY_LOG_TABLE). The dead-letter file keeps
 * only the entries not written; a log is only read. 0 when every entry was written or already
 * stored, 1 otherwise.
 */
export async function replayDeadLetter(
  config: ActivityLogConfig,
  args: Pick<ReplayArgs, 'file' | 'fromLog'>,
  signal: AbortSignal,
): Promise<number> {
  const path = args.fromLog ?? args.file ?? config.activityLogDeadLetter;
  const engine = sqlEngineOf(config.activityLogUrl);
  if (engine === undefined) throw new UsageError('ACTIVITY_LOG_URL must be sqlite:<file>, postgres://… or mysql://… to replay into');
  // The store's errors never carry the URL's password: it takes it out of every driver message.
  const store = await openSqlActivityLogStore(config.activityLogUrl, { table: config.activityLogTable });
  try {
    const result: ReplayResult & { skipped?: number } =
      args.fromLog === undefined ? await replayDeadLetterFile(path, store, { signal }) : await replayCapturedLog(path, store, { signal });
    const source = args.fromLog === undefined ? path : `${path} (captured log, left as it is)`;
    // A captured log's other lines (the server's own log, other processes' output) are skipped: counted, never written.
    const skipped = result.skipped === undefined ? '' : `, ${result.skipped} other lines skipped`;
    process.stdout.write(`replay-dead-letter: ${source} → ${engine} table ${config.activityLogTable}: ${summary(result)}${skipped}\n`);
    if (result.stoppedBy) process.stdout.write(`replay-dead-letter: stopped early: ${result.stoppedBy}\n`);
    const left = result.stillRefused + result.failedChecks + result.unreadable + result.oversized + result.notTried;
    return left === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

function summary(result: ReplayResult): string {
  return (
    `${result.written} written, ${result.stillRefused} still refused, ${result.unreadable} unreadable, ${result.notTried} not tried, ` +
    `${result.alreadyStored} already stored, ${result.failedChecks} failed the checks, ${result.oversized} over 64 KiB`
  );
}
