/** What a run's exit code is decided from. */
export interface RunEnd {
  /** Every line succeeded (or was skipped as applied before, or shown in a dry run), and the run was not interrupted. */
  readonly allSucceeded: boolean;
  /** Audit entries of this run not in the activity log: set aside in the dead-letter file, or lost. */
  readonly auditUnwritten: number;
}

/**
 * The exit code of a run that started (2, a usage or configuration error, is decided before): 1 when
 * a line did not succeed or the run was interrupted, whatever became of the audit entries, since a
 * rerun has lines to do; 3 when every line was done but some audit entries were not written; 0 otherwise.
 */
export function exitCode(end: RunEnd): 0 | 1 | 3 {
  if (!end.allSucceeded) return 1;
  return end.auditUnwritten > 0 ? 3 : 0;
}
