import type { ActivityEntry } from '@cotizaciones/core';
import type { ActivitySpool, SpoolTicket, SpoolWrite } from './activity-spool.js';
import type { LogCounts, ProblemReporter } from './activity-log-stats.js';

/** Where a recorded entry is in the spool: none of it when the spool did not take it. */
export interface Spooled {
  readonly ticket: SpoolTicket | undefined;
  /** Its line's bytes (0 when not spooled). */
  readonly bytes: number;
  /** Settles once its line is written, with the others of its batch. */
  readonly written: Promise<void> | undefined;
}

/**
 * Appends each recorded entry to the spool, counting what it kept and skipped; entries it skips are
 * said at most once a minute. One accounting per batch's write, shared by its entries.
 */
export function spoolAppends(spool: ActivitySpool | undefined, counts: LogCounts, reporter: ProblemReporter) {
  let lastWrite: Promise<SpoolWrite> | undefined;
  let lastWritten: Promise<void> | undefined;
  const skipped = (reason: 'full' | 'failed', error: unknown, entries: number) => {
    counts.spoolSkipped += entries;
    reporter.reportEvery(60_000, () => ({ kind: 'spool-skipped', reason, error, skipped: counts.spoolSkipped }), 'spool-skipped');
  };
  const accounted = (result: SpoolWrite) => {
    if (result.kept) counts.spooled += result.entries;
    else skipped('failed', result.error, result.entries);
  };
  const none: Spooled = { ticket: undefined, bytes: 0, written: undefined };

  return {
    append(entry: ActivityEntry): Spooled {
      if (!spool) return none;
      const appended = spool.append(entry);
      if (!appended.ok) {
        skipped(appended.reason, appended.error, 1);
        return none;
      }
      if (appended.written !== lastWrite) {
        lastWrite = appended.written;
        lastWritten = appended.written.then(accounted);
      }
      return { ticket: appended.ticket, bytes: appended.bytes, written: lastWritten };
    },
  };
}
