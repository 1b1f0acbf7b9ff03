import { cappedLines } from '../fs/capped-lines.js';
import { entryOfDeadLetterLine, isDeadLetterLineAsWritten, MAX_LINE_BYTES } from './dead-letter-line.js';
import { isKeeperPrefix } from './keeper-prefix.js';
import { replayLines, type ReplayLine, type ReplayResult, type ReplayStore } from './replay-entries.js';

/**
 * Where a dead-letter record begins in a log line: the service writes one to stderr, as a whole
 * dead-letter line, for an entry it could store nowhere (store, spool and dead-letter file all
 * failing). Its first key is `refusedAt`, which pino's own lines (level, msg, …) never start with.
 */
const RECORD_START = '{"refusedAt":';

/** Room for what the log's keeper puts before a line: a timestamp, journald's host and unit. */
const PREFIX_BYTES = 1024;

/** A captured log's replay: what became of its dead-letter lines, and how many other lines it skipped. */
export interface CapturedLogReplay extends ReplayResult {
  /** Lines that are not, after a known keeper's prefix, exactly a dead-letter line the service writes: never written. */
  readonly skipped: number;
}

/**
 * Writes to `store` the entries of the dead-letter lines in a captured server log (stdout and
 * stderr as docker, kubectl or journald keep them: a line may start with the keeper's prefix), with
 * the same checks as the dead-letter file's replay and skipping what the store holds by request id:
 * run it again once a cause is fixed and it writes only what is still missing. Only a line that is,
 * after a known keeper's prefix, exactly a dead-letter line as the service writes it is taken: any
 * other process writing to the same log could print a record of its own (a forged entry) inside a
 * line of its own. Every other line is skipped and counted. The log is only read.
 */
export async function replayCapturedLog(
  path: string,
  store: ReplayStore,
  options: { signal?: AbortSignal } = {},
): Promise<CapturedLogReplay> {
  const skipped = { count: 0 };
  const result = await replayLines(recordLines(path, skipped), store, () => Promise.resolve(), options.signal);
  return { ...result, skipped: skipped.count };
}

async function* recordLines(path: string, skipped: { count: number }): AsyncGenerator<ReplayLine> {
  for await (const read of cappedLines(path, MAX_LINE_BYTES - 1 + PREFIX_BYTES)) {
    const text = 'oversizedBytes' in read ? read.head : read.text;
    const start = text.indexOf(RECORD_START);
    if (start === -1 || !isKeeperPrefix(text.slice(0, start))) {
      skipped.count += 1;
      continue;
    }
    // A record too long to be read whole is counted as such (its head says it was meant as one).
    if ('oversizedBytes' in read) {
      yield read;
      continue;
    }
    const record = text.slice(start);
    if (Buffer.byteLength(record) > MAX_LINE_BYTES - 1) yield { oversizedBytes: Buffer.byteLength(record), head: record.slice(0, 256) };
    else if (!isDeadLetterLineAsWritten(record)) skipped.count += 1;
    else yield { line: record, entry: entryOfDeadLetterLine(record) };
  }
}
