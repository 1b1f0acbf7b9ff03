import { cappedLines } from '../fs/capped-lines.js';
import { entryOfDeadLetterLine, MAX_LINE_BYTES } from './dead-letter-line.js';
import { replayLines, type ReplayLine, type ReplayResult, type ReplayStore } from './replay-entries.js';

/**
 * Where a dead-letter record begins in a log line: the service writes one to stderr, as a whole
 * dead-letter line, for an entry it could store nowhere (store, spool and dead-letter file all
 * failing). Its first key is `refusedAt`, which pino's own lines (level, msg, …) never start with.
 */
const RECORD_START = '{"refusedAt":';

/** Room for what the log's keeper puts before a line: a timestamp, journald's host and unit. */
const PREFIX_BYTES = 1024;

/**
 * Writes to `store` the entries of the dead-letter records in a captured server log (stdout and
 * stderr as docker, kubectl or journald keep them: a line may start with a prefix), with the same
 * checks as the dead-letter file's replay and skipping what the store holds by request id: run it
 * again once a cause is fixed and it writes only what is still missing. The log is only read.
 */
export function replayCapturedLog(path: string, store: ReplayStore, options: { signal?: AbortSignal } = {}): Promise<ReplayResult> {
  return replayLines(recordLines(path), store, () => Promise.resolve(), options.signal);
}

async function* recordLines(path: string): AsyncGenerator<ReplayLine> {
  for await (const read of cappedLines(path, MAX_LINE_BYTES - 1 + PREFIX_BYTES)) {
    if ('oversizedBytes' in read) {
      if (read.head.includes(RECORD_START)) yield read;
      continue;
    }
    const start = read.text.indexOf(RECORD_START);
    if (start === -1) continue;
    const record = read.text.slice(start);
    if (Buffer.byteLength(record) > MAX_LINE_BYTES - 1) yield { oversizedBytes: Buffer.byteLength(record), head: record.slice(0, 256) };
    else yield { line: record, entry: entryOfDeadLetterLine(record) };
  }
}
