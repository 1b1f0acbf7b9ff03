import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { contentHash, type ChangeLine } from './change-line.js';
import { UsageError } from './usage-error.js';

/** Which lines of a file were applied, so that a rerun after an interruption skips them. */
export interface Journal {
  /** The run this journal belongs to: every rerun with it goes on with the same run id (and idempotency keys). */
  readonly runId: string;
  has(line: ChangeLine): boolean;
  /** Written at once (a kill right after loses nothing), one text line per applied line. */
  record(line: ChangeLine): void;
  close(): void;
}

/**
 * A line is known by its number and its content: if the file was edited since,
 * a changed line is applied again, an unchanged one is not.
 */
const keyOf = (line: ChangeLine) => `${line.line}\t${contentHash(line)}`;

const TARGET = '# applied to ';
const RUN = '# run ';

/**
 * Opens (or starts) the journal of runs against `target` (the upstream the changes go to). A
 * journal written for another target is refused: lines applied on staging are not applied on
 * production. A new journal keeps `newRunId`; an existing one, the run id it was started with.
 */
export function openJournal(path: string, target: string, newRunId: string): Journal {
  const header = `${TARGET}${target}`;
  const [first, ...rest] = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
  if (first !== undefined && first !== header) {
    throw new UsageError(`${path} records a run against ${first.replace(TARGET, '')}, not ${target}: pass --journal <another file>`);
  }
  const kept = rest.find((text) => text.startsWith(RUN))?.slice(RUN.length);
  const applied = new Set(rest.filter((text) => !text.startsWith('#')));
  const fd = openSync(path, 'a');
  if (first === undefined) writeSync(fd, `${header}\n`);
  const runId = kept ?? newRunId;
  if (kept === undefined) writeSync(fd, `${RUN}${runId}\n`);
  return {
    runId,
    has: (line) => applied.has(keyOf(line)),
    record: (line) => void writeSync(fd, `${keyOf(line)}\n`),
    close: () => closeSync(fd),
  };
}
