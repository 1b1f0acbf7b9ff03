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
    case 'dead-letter-failed':
      log.fatal({ err: problem.error, entry: problem.entry, lost: problem.lost }, 'activity log entry refused and NOT set aside: the dead-letter file cannot be written; entry lost');
      return;
    case 'dropped':
      log.error({ dropped: problem.dropped }, 'activity log queue full; entries dropped');
      return;
    case 'spilled':
      log.error({ spilled: problem.spilled }, 'activity log queue full; entries set aside in the dead-letter file for replay');
      return;
    case 'dead-letter-full':
      log.error({ dropped: problem.dropped }, 'the activity log dead-letter file is at ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES: refused entries dropped; replay it to make room');
      return;
    case 'unwritten-at-close':
      if (problem.lost > 0) log.error({ setAside: problem.setAside, lost: problem.lost }, 'activity log entries not written before shutdown');
      else log.warn({ setAside: problem.setAside }, 'activity log entries not written before shutdown; set aside in the dead-letter file for replay');
  }
}
