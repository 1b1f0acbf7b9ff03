import type { ActivityEntry } from '@cotizaciones/core';
import { entryOfRecord } from './entry-record.js';

/**
 * The segment format this release writes: a first line `{"spool":2}`, entry lines `{"e":<entry>}`,
 * and acknowledgement lines `{"done":[<request id>,…]}` naming the entries done by their request id,
 * so no damaged line can move an acknowledgement onto another entry. A file without that first line
 * is of format 1 (the previous release's: acknowledgements `{"ack":n,"done":[i,…]}` by place); a
 * first line naming another format (a later release's) is a format this one does not know.
 */
export const SPOOL_FORMAT = 2;
export const FORMAT_LINE = `{"spool":${SPOOL_FORMAT}}\n`;

/** An entry read back from a segment another process left, with its place among the entry lines (what this process acknowledges it by in memory). */
export interface SpooledEntry {
  readonly entry: ActivityEntry;
  readonly index: number;
}

/** What a readable segment holds, as {@link readSegment} finds it. */
export interface SegmentContent {
  readonly format: 1 | 2;
  /** Its entries not done yet, in order. */
  readonly pending: SpooledEntry[];
  /** Entry lines, readable or not (what the indexes count). */
  readonly positions: number;
  /** Format 1: the acknowledged prefix. */
  readonly acknowledged: number;
  /** Indexes done beyond that prefix (format 1), or done at all (format 2), unreadable entry lines included. */
  readonly done: Set<number>;
  /** Lines that held nothing this reader could take. */
  readonly unreadable: number;
  /** How many bytes end with a whole line. */
  readonly complete: number;
}

/** A segment's content, or the format it names when it is not one this release reads (kept as it is). */
export type ReadSegment = SegmentContent | { readonly format: 'unknown'; readonly named: unknown };

/**
 * Reads a segment's bytes. A last line without its newline (a write cut short) is no line. A NUL byte
 * never occurs in a line this release writes (JSON escapes it).
 */
export function readSegment(content: Buffer): ReadSegment {
  const complete = content.lastIndexOf(0x0a) + 1;
  const text = content.subarray(0, complete).toString('utf8');
  const torn = complete < content.length ? 1 : 0;
  const lines = text.split('\n').filter((line) => line !== '');
  const first = lines.length > 0 ? parsed(lines[0]!) : undefined;
  if (first !== undefined && 'spool' in first && first.spool !== SPOOL_FORMAT) return { format: 'unknown', named: first.spool };
  // Format 2 by its first line, or (that line damaged) by its acknowledgements.
  const byIdentity = first === undefined ? lines.some(isIdentityAck) : 'spool' in first;
  const read = byIdentity
    ? // No place is counted: a zeroed region (a power loss) ends a line as a newline does, so the lines around it stay readable.
      readByIdentity(
        text
          .split(LINE_ENDS)
          .filter((line) => line !== '')
          .slice(first === undefined ? 0 : 1),
      )
    : readByPlace(lines);
  return { ...read, unreadable: read.unreadable + torn, complete };
}

/** A newline, or a run of NUL bytes (what a power loss leaves). */
// eslint-disable-next-line no-control-regex -- the NUL byte is what this matches
const LINE_ENDS = /[\n\u0000]+/;

type Read = Omit<SegmentContent, 'complete'>;

/**
 * Format 2: an acknowledgement names a request id and is done with the oldest entry of that id it
 * follows that is not done yet; one naming no such entry (its line was lost) does nothing.
 */
function readByIdentity(lines: readonly string[]): Read {
  const entries: Array<SpooledEntry | undefined> = [];
  const waiting = new Map<string, number[]>();
  const done = new Set<number>();
  let unreadable = 0;
  for (const line of lines) {
    const record = parsed(line);
    if (isIdentityAckRecord(record)) {
      for (const id of record.done) {
        const index = typeof id === 'string' ? waiting.get(id)?.shift() : undefined;
        if (index !== undefined) done.add(index);
      }
      continue;
    }
    const index = entries.length;
    const entry = entryOfRecord(record?.e);
    entries.push(entry && { entry, index });
    if (!entry) {
      unreadable += 1;
      done.add(index);
    } else if (entry.requestId !== undefined) {
      const same = waiting.get(entry.requestId);
      if (same) same.push(index);
      else waiting.set(entry.requestId, [index]);
    }
  }
  const pending = entries.filter((read): read is SpooledEntry => read !== undefined && !done.has(read.index));
  return { format: 2, pending, positions: entries.length, acknowledged: 0, done, unreadable };
}

/**
 * Format 1 (segments the previous release left): an entry's index is its line's place among the lines
 * that are not acknowledgements, readable or not, as the writing process counted them. A line that is
 * not JSON is taken for an acknowledgement when it says `"ack":` and holds no entry's last field.
 */
function readByPlace(lines: readonly string[]): Read {
  const entries: SpooledEntry[] = [];
  const done = new Set<number>();
  let positions = 0;
  let acknowledged = 0;
  let unreadable = 0;
  for (const line of lines) {
    const record = parsed(line);
    if (record === undefined ? isDamagedAck(line) : typeof record.ack === 'number') {
      if (typeof record?.ack === 'number') {
        acknowledged = Math.max(acknowledged, record.ack);
        if (Array.isArray(record.done)) for (const index of record.done) if (typeof index === 'number') done.add(index);
      } else unreadable += 1;
      continue;
    }
    const index = positions;
    positions += 1;
    const entry = entryOfRecord(record?.e);
    if (entry) entries.push({ entry, index });
    else {
      // Nothing can forward it: done, so the segment can still end (the count goes to the log).
      unreadable += 1;
      done.add(index);
    }
  }
  acknowledged = Math.min(acknowledged, positions);
  for (const index of done) if (index < acknowledged || index >= positions) done.delete(index);
  const pending = entries.filter(({ index }) => index >= acknowledged && !done.has(index));
  return { format: 1, pending, positions, acknowledged, done, unreadable };
}

function parsed(line: string): { e?: unknown; ack?: unknown; done?: unknown; spool?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return undefined;
  }
}

function isIdentityAck(line: string): boolean {
  return isIdentityAckRecord(parsed(line));
}

function isIdentityAckRecord(record: ReturnType<typeof parsed>): record is { done: unknown[] } {
  return record !== undefined && Array.isArray(record.done) && !('ack' in record) && !('e' in record);
}

function isDamagedAck(line: string): boolean {
  return line.includes('"ack":') && !line.includes('"userAgent":');
}
