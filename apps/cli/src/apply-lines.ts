import { isMalformed, type ChangeLine, type InputLine } from './change-line.js';
import type { Journal } from './journal.js';
import { succeeded, type LineResult } from './line-result.js';
import type { Counts, Progress } from './progress.js';
import type { ResultsFile } from './results-file.js';

export interface ApplyOptions {
  /** Lines in flight at once. */
  readonly concurrency: number;
  /** Resolves when the next line may start (the `--rate` pace). */
  readonly pace: () => Promise<void>;
  /** Aborted on Ctrl-C: no new line starts, those in flight finish. */
  readonly signal: AbortSignal;
}

export interface ApplyParts {
  /** Sends one line through its use case. */
  readonly run: (line: ChangeLine) => Promise<LineResult>;
  /** Absent in a dry run: nothing is applied, so nothing is recorded. */
  readonly journal: Pick<Journal, 'appliedAt' | 'record'> | undefined;
  readonly results: ResultsFile;
  readonly progress: Progress;
}

export interface Summary {
  readonly counts: Counts;
  /** Lines not started because of an interruption. */
  readonly interrupted: boolean;
  /** Every line read succeeded (or was applied before, or was only shown in a dry run). */
  readonly allSucceeded: boolean;
  /** Lines skipped as applied before that were at another line number then (lines inserted, removed or moved since). */
  readonly moved: number;
}

/**
 * Reads the file line by line and keeps `concurrency` lines in flight, so a file
 * of any size is held in memory only as far as those lines. Malformed lines and
 * lines the journal has (by content and occurrence, wherever they were) are reported without being sent.
 */
export async function applyLines(input: AsyncIterable<InputLine>, options: ApplyOptions, parts: ApplyParts): Promise<Summary> {
  const counts: Counts = { ok: 0, rejected: 0, failed: 0, invalid: 0, malformed: 0, skipped: 0, 'dry-run': 0 };
  let done = 0;
  let moved = 0;
  let allSucceeded = true;
  const report = (result: LineResult) => {
    counts[result.outcome] += 1;
    done += 1;
    if (!succeeded(result.outcome)) allSucceeded = false;
    parts.results.write(result);
    parts.progress.update(done, counts);
  };

  const inFlight = new Set<Promise<void>>();
  const start = (line: ChangeLine) => {
    const task = parts
      .run(line)
      .then(
        (result) => {
          if (result.outcome === 'ok') parts.journal?.record(line);
          report(result);
        },
        // Not a reply the use case gave (the core answers every failure it knows): the line failed, the run goes on.
        (error: unknown) => report({ line: line.line, outcome: 'failed', message: error instanceof Error ? error.message : String(error) }),
      )
      // The journal or the results file could not be written (a full disk): stop starting lines, say so at the end.
      .catch((error: unknown) => void (fatal ??= error instanceof Error ? error : new Error(String(error))))
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  let fatal: Error | undefined;
  let interrupted = false;
  try {
    await readAll();
  } finally {
    // Whatever stopped the reading, the lines in flight finish and are reported.
    await Promise.all(inFlight);
    parts.progress.finish();
  }
  if (fatal !== undefined) throw fatal;
  return { counts, interrupted, allSucceeded: allSucceeded && !interrupted, moved };

  async function readAll(): Promise<void> {
    for await (const line of input) {
      if (fatal !== undefined) return;
      if (options.signal.aborted) {
        interrupted = true;
        break;
      }
      if (isMalformed(line)) {
        report({ line: line.line, outcome: 'malformed', message: line.problem });
        continue;
      }
      const appliedAt = parts.journal?.appliedAt(line);
      if (appliedAt !== undefined) {
        if (appliedAt !== line.line) moved += 1;
        report({
          line: line.line,
          outcome: 'skipped',
          message: `applied by an earlier run${appliedAt === line.line ? '' : ` (as line ${appliedAt})`}`,
        });
      } else {
        while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
        await options.pace();
        if (options.signal.aborted) {
          interrupted = true;
          break;
        }
        start(line);
      }
    }
  }
}
