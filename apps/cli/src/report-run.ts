import type { ActivityLogStats } from '@cotizaciones/adapters';
import { exitCode } from './exit-code.js';
import type { OpenRun } from './open-run.js';
import type { RunOutcome } from './run-apply.js';
import { reportLines } from './run-report.js';
import { shellQuote } from './shell-quote.js';

/** Audit entries of this run that are not in the activity log: set aside in the dead-letter file, or lost. */
export function unwrittenAudit(stats: ActivityLogStats | undefined): { setAside: number; lost: number } {
  if (!stats) return { setAside: 0, lost: 0 };
  return { setAside: stats.deadLettered + stats.spilled, lost: stats.dropped + stats.deadLetterFailed + stats.deadLetterDropped };
}

/** The summary of a run that ended, on stdout; its exit code. */
export function reportRun(run: OpenRun, { summary, gaveUp }: RunOutcome): 0 | 1 | 3 {
  const audit = unwrittenAudit(run.adapters?.deps.activityLog.stats());
  const report = reportLines({
    title: run.args.dryRun ? 'dry run' : `run ${run.identity.runId} as user ${run.identity.userId}`,
    summary,
    gaveUp,
    resultsPath: run.args.results,
    audit,
    deadLetterPath: run.config.activityLogDeadLetter,
    deadLetterArg: shellQuote(run.config.activityLogDeadLetter),
    resume: run.resume,
    rowsNotShown: run.rowsNotShown(),
  });
  process.stdout.write(`${report.join('\n')}\n`);
  return exitCode({ allSucceeded: summary.allSucceeded, auditUnwritten: audit.setAside + audit.lost });
}
