import { randomBytes } from 'node:crypto';
import { createLog, errorSummary, openAdapters, openTracing, type RuntimeConfig } from '@cotizaciones/runtime';
import { auditMarks, type AuditMarks } from './audit-marks.js';
import type { ApplyArgs } from './cli-args.js';
import { openJournal, type Journal } from './journal.js';
import { lineRequestId } from './line-identity.js';
import type { RunIdentity } from './line-runner.js';
import { openResultsFile, type ResultsFile } from './results-file.js';
import { UsageError } from './usage-error.js';
import { VERSION } from './version.js';

/** Rows of a dry run shown on stdout; all are in its results file. */
const DRY_RUN_SHOWN = 50;
/** How long the spans still pending at the end may take to be exported. */
const TRACES_TIMEOUT_MS = 5_000;
/** How long the audit entries still queued at the end may take to be written. */
const CLOSE_TIMEOUT_MS = 10_000;

/** What a run writes to and through, opened; none of it in a dry run but the results file. */
export interface OpenRun {
  readonly args: ApplyArgs;
  readonly config: RuntimeConfig;
  readonly identity: RunIdentity;
  readonly journal: Journal | undefined;
  readonly tracing: Awaited<ReturnType<typeof openTracing>> | undefined;
  readonly adapters: Awaited<ReturnType<typeof openAdapters>> | undefined;
  readonly results: ResultsFile;
  /** The journal's audit marks, when there are both a journal and an activity log. */
  readonly marks: AuditMarks | undefined;
  /** The command that resumes the run. */
  readonly resume: string;
  /** Rows of a dry run not shown on stdout. */
  rowsNotShown(): number;
  /** Writes what is still queued (audit entries, spans, journal, results) and closes it all. */
  close(): Promise<void>;
}

/**
 * Opens the journal, tracing, the adapters and the results file of a run, says on stderr where it
 * goes, and confirms an earlier stopped run's audit entries; or the lines refusing it (exit code 2).
 */
export async function openRun(
  args: ApplyArgs,
  config: RuntimeConfig,
  target: string | undefined,
  resume: string,
): Promise<OpenRun | { readonly refused: readonly string[] }> {
  // The server log's rules (levels, no secret), on stderr: stdout carries the summary.
  const log = createLog(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const newRunId = `cli-${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
  let journal;
  try {
    // Nothing real is applied in a dry run or to the demo upstream: nothing to journal.
    journal = target === undefined || args.dryRun ? undefined : openJournal(args.journal, target, newRunId);
  } catch (error) {
    if (error instanceof UsageError) return { refused: [`cotizaciones: ${error.message}`] };
    throw error;
  }
  const identity: RunIdentity = { userId: args.as, runId: journal?.runId ?? newRunId, userAgent: `cotizaciones-cli/${VERSION}` };
  // Before the adapters: their spans go to the provider started here.
  const tracing = args.dryRun ? undefined : await openTracing(config.tracing, log, 'cotizaciones-cli');
  // No audit entry is stored before the journal names its line: a rerun after a kill then never writes one twice.
  const adapters = args.dryRun
    ? undefined
    : await openAdapters(config, log, { beforeActivityWrite: () => journal?.flush(), channel: 'batch' });
  // A dry run shows its first rows as they come; the rest are in the file (a million lines are not held or printed).
  let rows = 0;
  const results = openResultsFile(
    args.results,
    args.dryRun ? (row) => void (rows++ < DRY_RUN_SHOWN && process.stdout.write(row)) : undefined,
  );
  process.stderr.write(
    `${args.dryRun ? 'dry run' : `applying as user ${identity.userId} to ${target ?? 'the built-in demo upstream'}`}; results in ${args.results}` +
      `${results.kept ? ` (the earlier run's kept as ${results.kept})` : ''}\n`,
  );
  if (journal && journal.byLineNumber > 0) {
    process.stderr.write(
      `journal: ${journal.byLineNumber} of its lines were recorded by an earlier version by line number: each is read as the next line with its content, wherever it is now\n`,
    );
  }
  const marks =
    adapters && journal ? auditMarks(adapters.deps.activityLog, journal, (line) => lineRequestId(identity.runId, line)) : undefined;
  if (marks && adapters && journal) await recoverAudit(marks, adapters, journal.pending.length);
  return {
    args,
    config,
    identity,
    journal,
    tracing,
    adapters,
    results,
    marks,
    resume,
    rowsNotShown: () => Math.max(0, rows - DRY_RUN_SHOWN),
    async close() {
      // Whatever stopped the run (a bad header is found before any line is sent), what was applied is audited.
      await adapters?.close(CLOSE_TIMEOUT_MS);
      await tracing?.shutdown(TRACES_TIMEOUT_MS);
      marks?.finish();
      journal?.close();
      results.close();
    },
  };
}

/** The entries an earlier stopped run left unconfirmed: found in the activity log, or written now. */
async function recoverAudit(marks: AuditMarks, adapters: NonNullable<OpenRun['adapters']>, pending: number): Promise<void> {
  const recovered = await marks.recover(adapters.activityStore);
  if ('error' in recovered) {
    process.stderr.write(
      `audit: ${pending} entries of an earlier run may not be in the activity log, which cannot be asked now (${errorSummary(recovered.error).message}): they stay pending for the next run\n`,
    );
  } else if (pending > 0) {
    process.stderr.write(
      `audit: an earlier run was stopped before ${pending} of its entries were confirmed: ${recovered.found} are in the activity log, ${recovered.rewritten} written now\n`,
    );
  }
}
