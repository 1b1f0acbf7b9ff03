import type { TakeOverReport } from '@cotizaciones/adapters';
import type { Log } from './redacting-log.js';

/** What the spool's take-over at start left alone or did not forward, for the log (names and counts, no entry's values). */
export function reportSpoolTakeOver(log: Log, report: TakeOverReport): void {
  const { skipped, skippedNames, failedChecks, alreadySetAside } = report;
  if (Object.values(skipped).some((count) => count > 0))
    log.error(
      { ...skipped, names: skippedNames },
      'activity log spool: names skipped at the take-over (not a regular file, not readable, or a format a later release wrote): left as they are',
    );
  if (failedChecks > 0)
    log.error(
      { failedChecks },
      "activity log spool: taken-over entries fail the replay's checks: set aside in the dead-letter file, not written",
    );
  if (alreadySetAside > 0)
    log.warn({ alreadySetAside }, 'activity log spool: taken-over entries already in the dead-letter file: left to its replay');
}
