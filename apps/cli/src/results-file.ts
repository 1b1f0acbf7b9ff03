import { existsSync, openSync, renameSync, writeSync } from 'node:fs';
import { extname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { batchedFile } from './batched-file.js';
import type { LineResult } from './line-result.js';

/** A cell csv-stringify writes unquoted. */
const PLAIN = /^[^,"\r\n]*$/;

/** A CSV file of `line,outcome,message`, one row per input line, written in batches as lines end. */
export interface ResultsFile {
  write(result: LineResult): void;
  /** Writes out what is batched. */
  flush(): void;
  close(): void;
}

/**
 * Opens `path` for this run's results. An earlier run's file there is kept, renamed to the first
 * free `<name>.1.csv`, `<name>.2.csv`…: the newest results are always at `path`. Returns the name
 * the earlier file got, if any. `onRow` sees each row as written (a dry run shows the first ones).
 */
export function openResultsFile(path: string, onRow?: (row: string) => void): ResultsFile & { readonly kept: string | undefined } {
  let kept: string | undefined;
  if (existsSync(path)) {
    const ext = extname(path);
    const stem = path.slice(0, path.length - ext.length);
    for (let n = 1; kept === undefined; n += 1) if (!existsSync(`${stem}.${n}${ext}`)) kept = `${stem}.${n}${ext}`;
    renameSync(path, kept);
  }
  // Owner only, like every file the service and the CLI create: its messages name the input's values.
  const fd = openSync(path, 'wx', 0o600);
  writeSync(fd, 'line,outcome,message\n');
  const file = batchedFile(fd);
  return {
    kept,
    write: ({ line, outcome, message }) => {
      // A message csv-stringify would not quote (no comma, quote or line break) is written as it is,
      // without the library's set-up on every row; the others go through it.
      const row = PLAIN.test(message) ? `${line},${outcome},${message}\n` : stringify([[line, outcome, message]]);
      file.append(row);
      onRow?.(row);
    },
    flush: () => file.flush(),
    close: () => file.close(),
  };
}
