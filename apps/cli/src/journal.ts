import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { ChangeLine } from './change-line.js';
import { UsageError } from './usage-error.js';

/** Which lines of a file were applied, so that a rerun after an interruption skips them. */
export interface Journal {
  has(line: ChangeLine): boolean;
  /** Written at once (a kill right after loses nothing), one text line per applied line. */
  record(line: ChangeLine): void;
  close(): void;
}

/**
 * A line is known by its number and its content: if the file was edited since,
 * a changed line is applied again, an unchanged one is not.
 */
function keyOf(line: ChangeLine): string {
  const content = JSON.stringify([line.operation, [...line.params].sort(([a], [b]) => (a < b ? -1 : 1))]);
  return `${line.line}\t${createHash('sha256').update(content).digest('hex').slice(0, 32)}`;
}

/**
 * Opens (or starts) the journal of runs against `target` (the upstream the changes go to). A
 * journal written for another target is refused: lines applied on staging are not applied on
 * production.
 */
export function openJournal(path: string, target: string): Journal {
  const header = `# applied to ${target}`;
  const [first, ...keys] = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
  if (first !== undefined && first !== header) {
    throw new UsageError(`${path} records a run against ${first.replace(/^# applied to /, '')}, not ${target}: pass --journal <another file>`);
  }
  const applied = new Set(keys);
  const fd = openSync(path, 'a');
  if (first === undefined) writeSync(fd, `${header}\n`);
  return {
    has: (line) => applied.has(keyOf(line)),
    record: (line) => void writeSync(fd, `${keyOf(line)}\n`),
    close: () => closeSync(fd),
  };
}
