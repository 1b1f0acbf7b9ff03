import type { ActivityLogProblem } from '@cotizaciones/adapters';
import type { Log } from './redacting-log.js';

/** What the activity log tells the log about the entries it could not write. */
export function reportActivityProblem(log: Log, problem: ActivityLogProblem): void {
  switch (problem.kind) {
    case 'write-failed':
      log.error({ err: problem.error, attempt: problem.attempt, queued: problem.queued }, 'activity log write failed; will retry');
      return;
    case 'refused':
      // The entry's values stay out of the server log: the dead-letter file has them.
      log.error({ err: problem.error, entry: problem.entry }, 'activity log entry refused by the store; set aside in the dead-letter file');
      return;
    case 'unwritable':
      log.error(
        { err: problem.error, entry: problem.entry },
        'activity log entry not written alone while the entries behind it were; set aside in the dead-letter file',
      );
      return;
    case 'dead-letter-failed':
      log.fatal(
        { err: problem.error, entry: problem.entry, failed: problem.failed },
        'activity log entry NOT set aside: the dead-letter file cannot be written; the whole entry is on stderr as a dead-letter line (replay-dead-letter --from-log)',
      );
      return;
    case 'dropped':
      log.error({ dropped: problem.dropped }, 'activity log queue full; entries dropped');
      return;
    case 'spilled':
      log.error({ spilled: problem.spilled }, 'activity log queue full; entries set aside in the dead-letter file for replay');
      return;
    case 'dead-letter-full':
      log.error(
        { dropped: problem.dropped },
        'the activity log dead-letter file is at ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES: refused entries dropped; replay it to make room',
      );
      return;
    case 'spool-skipped':
      log.error(
        { reason: problem.reason, err: problem.error, skipped: problem.skipped },
        problem.reason === 'full'
          ? 'the activity log spool is at ACTIVITY_LOG_SPOOL_MAX_BYTES: entries held in memory only until the store takes them'
          : 'the activity log spool cannot be written: entries held in memory only until the store takes them',
      );
      return;
    case 'adopted':
      log.warn(
        { adopted: problem.adopted, unreadable: problem.unreadable },
        'activity log entries left in the spool by a stopped process: forwarding those the store does not hold',
      );
      return;
    case 'unwritten-at-close': {
      const counts = { setAside: problem.setAside, leftInSpool: problem.leftInSpool, lost: problem.lost };
      if (problem.lost > 0) log.error(counts, 'activity log entries not written before shutdown');
      else
        log.warn(
          counts,
          'activity log entries not written before shutdown: left in the spool for the next start, or set aside in the dead-letter file for replay',
        );
    }
  }
}
