import type { ActivityEntry } from '@cotizaciones/core';
import { cutMarker } from './cut-text.js';
import { ENTRY_RECORD_KEYS, entryOfRecord, entryRecord, type EntryRecord } from './entry-record.js';

/** Why the store refused an entry, as the dead-letter file keeps it. */
export interface Refusal {
  readonly code: string;
  readonly reason: string;
}

/** One line of the dead-letter file: the whole entry, and when and why it was refused. */
interface DeadLetterRecord {
  readonly refusedAt: string;
  readonly code: string;
  readonly reason: string;
  readonly entry: EntryRecord;
}

/** The most a dead-letter line holds, its newline included: a longer text value is cut, saying how long it was. */
export const MAX_LINE_BYTES = 64 * 1024;

/** The JSON line (with its newline) that sets `entry` aside, at most `maxBytes` long. */
export function deadLetterLine(entry: ActivityEntry, refusal: Refusal, refusedAt: Date, maxBytes = MAX_LINE_BYTES): string {
  const record: DeadLetterRecord = {
    refusedAt: refusedAt.toISOString(),
    code: refusal.code,
    reason: refusal.reason,
    entry: entryRecord(entry),
  };
  return `${fitted(record, maxBytes - 1)}\n`;
}

/** `record` as JSON within `maxBytes`: the longest text values are cut first, until it fits. */
function fitted(record: DeadLetterRecord, maxBytes: number): string {
  let json = JSON.stringify(record);
  for (let cuts = 0; Buffer.byteLength(json) > maxBytes && cuts < 64; cuts += 1) {
    const longest = longestText(record);
    if (!longest || longest.value.length <= 64) break;
    const excess = Buffer.byteLength(json) - maxBytes;
    const bytes = Buffer.from(longest.value);
    // Cut by bytes, at a character's start, with room for the marker; escapes in the JSON may need another pass.
    let keep = Math.max(0, bytes.length - excess - 48);
    while (keep > 0 && ((bytes[keep] ?? 0) & 0xc0) === 0x80) keep -= 1;
    longest.set(`${bytes.subarray(0, keep).toString('utf8')}${cutMarker(bytes.length)}`);
    json = JSON.stringify(record);
  }
  if (Buffer.byteLength(json) > maxBytes) {
    // Many short values (not something the operations produce): the details go, saying how large they were.
    const details = JSON.stringify(record.entry.details);
    (record.entry as { details: Record<string, unknown> | null }).details = { cut: cutMarker(Buffer.byteLength(details ?? '')) };
    json = JSON.stringify(record);
  }
  return json;
}

/** The longest string in the record's texts (the refusal's reason, the entry's fields, the details' values), and how to replace it. */
function longestText(record: DeadLetterRecord): { value: string; set: (value: string) => void } | undefined {
  let found: { value: string; set: (value: string) => void } | undefined;
  const consider = (value: unknown, set: (value: string) => void) => {
    if (typeof value === 'string' && value.length > (found?.value.length ?? 0)) found = { value, set };
  };
  const mutable = record as unknown as { reason: string; entry: Record<string, unknown> };
  consider(mutable.reason, (value) => (mutable.reason = value));
  for (const key of ['description', 'module', 'eventKey', 'entityType', 'userId', 'requestId', 'userAgent'] as const) {
    consider(mutable.entry[key], (value) => (mutable.entry[key] = value));
  }
  const details = mutable.entry.details as Record<string, unknown> | null;
  for (const key of Object.keys(details ?? {})) consider(details?.[key], (value) => ((details as Record<string, unknown>)[key] = value));
  return found;
}

/** The entry a dead-letter line holds, or undefined when the line is not one. */
export function entryOfDeadLetterLine(line: string): ActivityEntry | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  return typeof record === 'object' && record !== null && 'entry' in record ? entryOfRecord(record.entry) : undefined;
}

/** A dead-letter record's keys, in the order {@link deadLetterLine} writes them. */
const RECORD_KEYS = ['refusedAt', 'code', 'reason', 'entry'] as const satisfies ReadonlyArray<keyof DeadLetterRecord>;

/**
 * Whether `text` is exactly a line {@link deadLetterLine} writes (without its newline): its keys, in
 * its order, and nothing JSON.stringify would not write — no space, no escape it would not make,
 * nothing before or after. Text that merely holds such a record is not one.
 */
export function isDeadLetterLineAsWritten(text: string): boolean {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    hasKeys(record, RECORD_KEYS) &&
    typeof record.refusedAt === 'string' &&
    typeof record.code === 'string' &&
    typeof record.reason === 'string' &&
    hasKeys(record.entry, ENTRY_RECORD_KEYS) &&
    JSON.stringify(record) === text
  );
}

function hasKeys<K extends string>(value: unknown, keys: readonly K[]): value is Record<K, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, i) => key === keys[i]);
}
