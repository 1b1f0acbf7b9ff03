import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import type { ActivityLogStats } from '@cotizaciones/adapters';
import { ConfigError, createLog, errorSummary, loadRuntimeConfig, onStopSignals, openAdapters, openTracing, upstreamTarget } from '@cotizaciones/runtime';
import { applyLines } from './apply-lines.js';
import { USAGE, type ApplyArgs } from './cli-args.js';
import { fail } from './fail.js';
import { countLines } from './count-lines.js';
import { openJournal } from './journal.js';
import { exitCode } from './exit-code.js';
import { lineRequestId } from './line-identity.js';
import { dryRunner, lineRunner, type RunIdentity } from './line-runner.js';
import { auditMarks } from './audit-marks.js';
import { outageGuard } from './outage.js';
import { pace } from './pace.js';
import { tracedLines } from './traced-lines.js';
import { progress } from './progress.js';
import { readInput } from './read-input.js';
import { reportLines } from './run-report.js';
import { openResultsFile } from './results-file.js';
import { UsageError } from './usage-error.js';
import { VERSION } from './version.js';

/** Rows of a dry run shown on stdout; all are in its results file. */
const DRY_RUN_SHOWN = 50;
/** How often the journal is told which lines' audit entries are written. */
const CHECKPOINT_MS = 250;
/** How long the spans still pending at the end may take to be exported. */
const TRACES_TIMEOUT_MS = 5_000;
/** How long the audit entries still queued at the end may take to be written. */
const CLOSE_TIMEOUT_MS = 10_000;

/** The input must be a file; what the tool writes must not be it. */
function checkPaths(args: ApplyArgs): void {
  if (!existsSync(args.file) || !statSync(args.file).isFile()) throw new UsageError(`no such file: ${args.file}`);
  const input = realpathSync(args.file);
  for (const [option, path] of [['--results', args.results], ['--journal', args.journal]] as const) {
    if (existsSync(path) && realpathSync(path) === input) throw new UsageError(`${option} ${path} is the input file`);
  }
}

/** `cotizaciones apply`: every line of the file through its operation's use case. */
export async function apply(args: ApplyArgs): Promise<number> {
  let config;
  try {
    checkPaths(args);
    config = loadRuntimeConfig(process.env);
  } catch (error) {
    if (error instanceof UsageError) return fail(2, [`cotizaciones: ${error.message}`, '', USAGE]);
    if (error instanceof ConfigError) return fail(2, error.problems.map((line) => `configuration error: ${line}`));
    throw error;
  }
  // A token kept in each user's web session does not exist here.
  if (config.tokenSource.kind === 'session') return fail(2, ['configuration error: UPSTREAM_TOKEN_SESSION_KEY: the command line has no web session; set UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL']);
  const target = upstreamTarget(config);
  if (target === undefined && !args.dryRun && !args.demo) {
    return fail(2, ['cotizaciones: UPSTREAM_BASE_URL is unset: the changes would go to the built-in demo upstream. Set it, or pass --demo to try the tool.']);
  }

  // The server log's rules (levels, no secret), on stderr: stdout carries the summary.
  const log = createLog(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const newRunId = `cli-${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
  let journal;
  try {
    // Nothing real is applied in a dry run or to the demo upstream: nothing to journal.
    journal = target === undefined || args.dryRun ? undefined : openJournal(args.journal, target, newRunId);
  } catch (error) {
    if (error instanceof UsageError) return fail(2, [`cotizaciones: ${error.message}`]);
    throw error;
  }
  const identity: RunIdentity = { userId: args.as, runId: journal?.runId ?? newRunId, userAgent: `cotizaciones-cli/${VERSION}` };
  // Before the adapters: their spans go to the provider started here.
  const tracing = args.dryRun ? undefined : await openTracing(config.tracing, log, 'cotizaciones-cli');
  // No audit entry is stored before the journal names its line: a rerun after a kill then never writes one twice.
  const adapters = args.dryRun ? undefined : await openAdapters(config, log, { beforeActivityWrite: () => journal?.flush(), channel: 'batch' });
  // A dry run shows its first rows as they come; the rest are in the file (a million lines are not held or printed).
  let rows = 0;
  const results = openResultsFile(args.results, args.dryRun ? (row) => void (rows++ < DRY_RUN_SHOWN && process.stdout.write(row)) : undefined);
  process.stderr.write(
    `${args.dryRun ? 'dry run' : `applying as user ${identity.userId} to ${target ?? 'the built-in demo upstream'}`}; results in ${args.results}` +
      `${results.kept ? ` (the earlier run's kept as ${results.kept})` : ''}\n`,
  );
  if (journal && journal.byLineNumber > 0) {
    process.stderr.write(`journal: ${journal.byLineNumber} of its lines were recorded by an earlier version by line number: each is read as the next line with its content, wherever it is now\n`);
  }
  // The same command: a rerun skips what the journal says was applied and goes on with the rest.
  const resume = `to resume, run: cotizaciones ${process.argv.slice(2).map(shellQuote).join(' ')}`;

  const marks = adapters && journal ? auditMarks(adapters.deps.activityLog, journal, (line) => lineRequestId(identity.runId, line)) : undefined;
  if (marks && adapters && journal) {
    const pending = journal.pending.length;
    const recovered = await marks.recover(adapters.activityStore);
    if ('error' in recovered) {
      process.stderr.write(`audit: ${pending} entries of an earlier run may not be in the activity log, which cannot be asked now (${errorSummary(recovered.error).message}): they stay pending for the next run\n`);
    } else if (pending > 0) {
      process.stderr.write(`audit: an earlier run was stopped before ${pending} of its entries were confirmed: ${recovered.found} are in the activity log, ${recovered.rewritten} written now\n`);
    }
  }
  const stop = new AbortController();
  onStopSignals(
    (signal) => {
      process.stderr.write(`\n${signal}: no new line starts; finishing the lines in flight and writing the audit entries\n${resume}\n`);
      stop.abort();
    },
    (signal) => {
      process.stderr.write(`\n${signal} again: stopping now; lines in flight may or may not be applied (a rerun sends them again, with the same idempotency keys)\n${resume}\n`);
      // Audit entries still queued go to the dead-letter file rather than being lost.
      void Promise.race([Promise.all([adapters?.close(0), tracing?.shutdown(1_000)]), new Promise((resolve) => setTimeout(resolve, 2_000))]).finally(() => {
        marks?.finish();
        try {
          journal?.flush();
          results.flush();
        } finally {
          process.exit(1);
        }
      });
    },
  );

  const untraced = adapters ? lineRunner(marks ? { ...adapters.deps, activityLog: marks.activityLog } : adapters.deps, identity) : dryRunner(identity);
  const traced = tracing?.enabled ? tracedLines(untraced, identity.runId) : undefined;
  const run = traced?.run ?? untraced;
  let gaveUp = false;
  const outage = outageGuard(run, {
    maxWaitMs: args.maxWaitMs,
    signal: stop.signal,
    onOutage: (state) =>
      process.stderr.write(
        state.down
          ? `\nthe upstream cannot be reached (${state.message}): nothing was sent; waiting up to ${args.maxWaitMs / 1000} s, no new line starts meanwhile\n`
          : `\nthe upstream answers again after ${(state.waitedMs / 1000).toFixed(1)} s: going on\n`,
      ),
    onGiveUp: () => {
      gaveUp = true;
      process.stderr.write(`\nthe upstream could not be reached for ${args.maxWaitMs / 1000} s: stopping (the lines waiting are not sent)\n${resume}\n`);
      stop.abort();
    },
  });
  const paced = pace(args.rate);
  // The journal learns which lines' entries are written as the run goes, not only at its end.
  const checkpoints = setInterval(() => marks?.checkpoint(), CHECKPOINT_MS).unref();
  const total = (await countLines(args.file)) - (/\.(ndjson|jsonl)$/i.test(args.file) ? 0 : 1);
  let summary;
  try {
    summary = await applyLines(
      readInput(args.file),
      {
        concurrency: args.concurrency,
        pace: async () => {
          await outage.clear();
          await paced();
        },
        signal: stop.signal,
      },
      { run: outage.run, journal: journal && { appliedAt: (line) => journal.appliedAt(line), record: (line) => (marks ? marks.applied(line) : journal.record(line)) }, results, progress: progress(process.stderr, total) },
    );
  } finally {
    clearInterval(checkpoints);
    traced?.end();
    // Whatever stopped the run (a bad header is found before any line is sent), what was applied is audited.
    await adapters?.close(CLOSE_TIMEOUT_MS);
    await tracing?.shutdown(TRACES_TIMEOUT_MS);
    marks?.finish();
    journal?.close();
    results.close();
  }

  const audit = adapters ? unwrittenAudit(adapters.deps.activityLog.stats()) : { setAside: 0, lost: 0 };
  const report = reportLines({
    title: args.dryRun ? 'dry run' : `run ${identity.runId} as user ${identity.userId}`,
    summary,
    gaveUp,
    resultsPath: args.results,
    audit,
    deadLetterPath: config.activityLogDeadLetter,
    deadLetterArg: shellQuote(config.activityLogDeadLetter),
    resume,
    rowsNotShown: Math.max(0, rows - DRY_RUN_SHOWN),
  });
  process.stdout.write(`${report.join('\n')}\n`);
  return exitCode({ allSucceeded: summary.allSucceeded, auditUnwritten: audit.setAside + audit.lost });
}

/** Audit entries of this run that are not in the activity log: set aside in the dead-letter file, or lost. */
function unwrittenAudit(stats: ActivityLogStats): { setAside: number; lost: number } {
  return { setAside: stats.deadLettered + stats.spilled, lost: stats.dropped + stats.deadLetterFailed + stats.deadLetterDropped };
}

/** An argument as a POSIX shell reads it back. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
