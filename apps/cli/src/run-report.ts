import type { Summary } from './apply-lines.js';

/** What the summary on stdout says of a run that ended. */
export interface RunReport {
  /** `dry run`, or `run <id> as user <id>`. */
  readonly title: string;
  readonly summary: Summary;
  /** The upstream could not be reached past `--max-wait` (else an interruption was a stop signal). */
  readonly gaveUp: boolean;
  readonly resultsPath: string;
  /** Audit entries set aside in the dead-letter file, and those that could not be set aside either. */
  readonly audit: { readonly setAside: number; readonly lost: number };
  readonly deadLetterPath: string;
  /** The command that resumes the run, quoted for a shell. */
  readonly resume: string;
  /** The dead-letter file's path quoted for a shell. */
  readonly deadLetterArg: string;
  /** Rows of a dry run not shown on stdout. */
  readonly rowsNotShown: number;
}

/**
 * The summary's lines: the counts of each outcome, then only what applies: the lines found at
 * other line numbers than when applied, the audit entries not written, the command to resume, the
 * dry-run rows not shown.
 */
export function reportLines(report: RunReport): string[] {
  const { summary, audit } = report;
  const counts = Object.entries(summary.counts).filter(([, count]) => count > 0);
  const unwritten = audit.setAside + audit.lost;
  return [
    `${report.title}: ${counts.map(([name, count]) => `${count} ${name}`).join(', ') || 'no line'}` +
      `${summary.interrupted ? `; ${report.gaveUp ? 'stopped: the upstream could not be reached' : 'interrupted'}` : ''}; results in ${report.resultsPath}`,
    ...(summary.moved > 0
      ? [
          `journal: ${summary.moved} of the skipped lines ${summary.moved === 1 ? 'was' : 'were'} at another line number when applied (lines inserted, removed or moved since): known by their content, not sent again`,
        ]
      : []),
    ...(unwritten > 0
      ? [
          `audit: ${audit.setAside} entr${audit.setAside === 1 ? 'y' : 'ies'} could not be written to the activity log and ${audit.setAside === 1 ? 'was' : 'were'} set aside in ${report.deadLetterPath}` +
            `${audit.lost ? `; ${audit.lost} could not be set aside either (see the log above)` : ''}; once the log is back: cotizaciones replay-dead-letter ${report.deadLetterArg}`,
        ]
      : []),
    ...(summary.interrupted ? [report.resume] : []),
    ...(report.rowsNotShown > 0 ? [`… ${report.rowsNotShown} more in ${report.resultsPath}`] : []),
  ];
}
