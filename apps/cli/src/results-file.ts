import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { LineResult } from './line-result.js';

/** A CSV file of `line,outcome,message`, one row per input line, written as each line ends. */
export interface ResultsFile {
  write(result: LineResult): void;
  close(): void;
}

export function openResultsFile(path: string): ResultsFile {
  const fd = openSync(path, 'w');
  writeSync(fd, 'line,outcome,message\n');
  return {
    write: ({ line, outcome, message }) => void writeSync(fd, stringify([[line, outcome, message]])),
    close: () => closeSync(fd),
  };
}
