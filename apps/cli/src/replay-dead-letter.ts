import { replayDeadLetterFile, sqlEngineOf } from '@cotizaciones/adapters';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import type { ActivityLogConfig } from '@cotizaciones/runtime';
import { UsageError } from './usage-error.js';

/**
 * `cotizaciones replay-dead-letter [file]`: writes the entries of the activity log's dead-letter file
 * to the store the server's own variables name (ACTIVITY_LOG_URL, ACTIVITY_LOG_TABLE) and keeps in
 * the file only the entries still refused. 0 when the file is left empty, 1 otherwise.
 */
export async function replayDeadLetter(config: ActivityLogConfig, file: string | undefined, signal: AbortSignal): Promise<number> {
  const path = file ?? config.activityLogDeadLetter;
  const engine = sqlEngineOf(config.activityLogUrl);
  if (engine === undefined) throw new UsageError('ACTIVITY_LOG_URL must be sqlite:<file>, postgres://… or mysql://… to replay into');
  // The store's errors never carry the URL's password: it takes it out of every driver message.
  const store = await openSqlActivityLogStore(config.activityLogUrl, { table: config.activityLogTable });
  try {
    const result = await replayDeadLetterFile(path, store, { signal });
    process.stdout.write(
      `replay-dead-letter: ${path} → ${engine} table ${config.activityLogTable}: ${result.written} written, ${result.stillRefused} still refused, ` +
        `${result.unreadable} unreadable, ${result.notTried} not tried\n`,
    );
    if (result.stoppedBy) process.stdout.write(`replay-dead-letter: stopped early: ${result.stoppedBy}\n`);
    return result.stillRefused + result.unreadable + result.notTried === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}
