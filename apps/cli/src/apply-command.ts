import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { ConfigError, createLog, loadRuntimeConfig, onStopSignals, openAdapters, upstreamTarget } from '@cotizaciones/runtime';
import { applyLines } from './apply-lines.js';
import { USAGE, type ApplyArgs } from './cli-args.js';
import { fail } from './fail.js';
import { countLines } from './count-lines.js';
import { openJournal } from './journal.js';
import { dryRunner, lineRunner, type RunIdentity } from './line-runner.js';
import { pace } from './pace.js';
import { progress } from './progress.js';
import { readInput } from './read-input.js';
import { openResultsFile } from './results-file.js';
import { UsageError } from './usage-error.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
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
  const adapters = args.dryRun ? undefined : await openAdapters(config, log);
  const results = openResultsFile(args.results);
  process.stderr.write(`${args.dryRun ? 'dry run' : `applying as user ${identity.userId} to ${target ?? 'the built-in demo upstream'}`}; results in ${args.results}\n`);

  const stop = new AbortController();
  onStopSignals(
    (signal) => {
      process.stderr.write(`\n${signal}: no new line starts; finishing the lines in flight and writing the audit entries\n`);
      stop.abort();
    },
    (signal) => {
      process.stderr.write(`\n${signal} again: stopping now; lines in flight may or may not be applied (a rerun sends them again)\n`);
      // Audit entries still queued go to the dead-letter file rather than being lost.
      void Promise.race([adapters?.close(0), new Promise((resolve) => setTimeout(resolve, 2_000))]).finally(() => process.exit(1));
    },
  );

  const total = (await countLines(args.file)) - (/\.(ndjson|jsonl)$/i.test(args.file) ? 0 : 1);
  let summary;
  try {
    summary = await applyLines(
      readInput(args.file),
      { concurrency: args.concurrency, pace: pace(args.rate), signal: stop.signal },
      { run: adapters ? lineRunner(adapters.deps, identity) : dryRunner(identity), journal, results, progress: progress(process.stderr, total) },
    );
  } finally {
    // Whatever stopped the run (a bad header is found before any line is sent), what was applied is audited.
    await adapters?.close(CLOSE_TIMEOUT_MS);
    journal?.close();
    results.close();
  }

  const counts = Object.entries(summary.counts).filter(([, count]) => count > 0);
  process.stdout.write(
    `${args.dryRun ? 'dry run' : `run ${identity.runId} as user ${identity.userId}`}: ` +
      `${counts.map(([name, count]) => `${count} ${name}`).join(', ') || 'no line'}` +
      `${summary.interrupted ? '; interrupted: run the same command again to go on' : ''}; results in ${args.results}\n`,
  );
  if (args.dryRun) for (const line of readFileSync(args.results, 'utf8').split('\n').slice(1)) if (line) process.stdout.write(`${line}\n`);
  return summary.allSucceeded ? 0 : 1;
}
