import { applyLines, type Summary } from './apply-lines.js';
import { countLines } from './count-lines.js';
import { dryRunner, lineRunner } from './line-runner.js';
import type { OpenRun } from './open-run.js';
import { giveUpNotice, outageNotice } from './outage-notices.js';
import { outageGuard } from './outage.js';
import { pace } from './pace.js';
import { progress } from './progress.js';
import { readInput } from './read-input.js';
import { tracedLines } from './traced-lines.js';

/** How often the journal is told which lines' audit entries are written. */
const CHECKPOINT_MS = 250;

/** How a run ended. */
export interface RunOutcome {
  readonly summary: Summary;
  /** The upstream could not be reached past `--max-wait`. */
  readonly gaveUp: boolean;
}

/**
 * Every line of the file through its operation's use case (or the dry runner), traced, paced,
 * held while the upstream is unreachable, journaled and shown as progress; stopped by `stop`. What
 * the run opened is closed at the end, whatever ended it.
 */
export async function runApply(run: OpenRun, stop: AbortController): Promise<RunOutcome> {
  const { args, adapters, marks, journal, identity } = run;
  const untraced = adapters
    ? lineRunner(marks ? { ...adapters.deps, activityLog: marks.activityLog } : adapters.deps, identity)
    : dryRunner(identity);
  const traced = run.tracing?.enabled ? tracedLines(untraced, identity.runId) : undefined;
  let gaveUp = false;
  const outage = outageGuard(traced?.run ?? untraced, {
    maxWaitMs: args.maxWaitMs,
    signal: stop.signal,
    onOutage: (state) => process.stderr.write(outageNotice(state, args.maxWaitMs)),
    onGiveUp: () => {
      gaveUp = true;
      process.stderr.write(giveUpNotice(args.maxWaitMs, run.resume));
      stop.abort();
    },
  });
  const paced = pace(args.rate);
  // The journal learns which lines' entries are written as the run goes, not only at its end.
  const checkpoints = setInterval(() => marks?.checkpoint(), CHECKPOINT_MS).unref();
  const total = (await countLines(args.file)) - (/\.(ndjson|jsonl)$/i.test(args.file) ? 0 : 1);
  try {
    const summary = await applyLines(
      readInput(args.file),
      {
        concurrency: args.concurrency,
        pace: async () => {
          await outage.clear();
          await paced();
        },
        signal: stop.signal,
      },
      {
        run: outage.run,
        journal: journal && {
          appliedAt: (line) => journal.appliedAt(line),
          record: (line) => (marks ? marks.applied(line) : journal.record(line)),
        },
        results: run.results,
        progress: progress(process.stderr, total),
      },
    );
    return { summary, gaveUp };
  } finally {
    clearInterval(checkpoints);
    traced?.end();
    await run.close();
  }
}
