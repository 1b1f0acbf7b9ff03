import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError } from './activity-store-error.js';
import { byteLength, bytesOfCodePoint, bytesPerUnit } from './column-charsets.js';
import { cutText } from './cut-text.js';
import type { ColumnLimit, TableLimits, TextColumn } from './table-limits.js';

/** An entry checked against the table's column limits, in memory. */
export interface EntryFit {
  /** Why `entry` cannot be stored as it is; undefined if it fits. Never quotes a value (it may be personal data). */
  refusalOf(entry: ActivityEntry): ActivityStoreError | undefined;
  /** The user agent as its column keeps it: cut to the column's width, with the contract's marker. */
  userAgent(value: string | null): string | null;
}

/** What fits a table whose limits are not known: everything, as it is (the database decides). */
export const FITS_ANYTHING: EntryFit = { refusalOf: () => undefined, userAgent: (value) => value };

type Check = (entry: ActivityEntry) => string | undefined;

const TEXT_VALUES: ReadonlyArray<readonly [string, (entry: ActivityEntry) => string | undefined]> = [
  ['module', (entry) => entry.module],
  ['event_key', (entry) => entry.eventKey],
  ['description', (entry) => entry.description],
  ['entity_type', (entry) => entry.entityType],
  ['user_id', (entry) => entry.userId],
  // Never cut: the request id is the entry's identity.
  ['request_id', (entry) => entry.requestId],
  ['client_ip', (entry) => entry.clientIp],
];

/**
 * The checks `limits` call for, built once per read of the table: per entry, one closure per
 * column that has a limit, each answering from lengths (a count of the value only when its length
 * alone cannot settle it) and a regular expression's test — nothing copied for an entry that fits.
 */
export function entryFit(limits: TableLimits): EntryFit {
  const checks: Array<readonly [ColumnLimit, Check]> = [];
  const add = (column: ColumnLimit | undefined, check: Check | undefined) => {
    if (column && check) checks.push([column, check]);
  };
  for (const [name, valueOf] of TEXT_VALUES) {
    const column = limits.get(name);
    add(column, column && textCheck(column, valueOf, true));
  }
  const userAgentColumn = limits.get('user_agent');
  // Its length is no reason to refuse: it is cut (see userAgent).
  add(userAgentColumn, userAgentColumn && textCheck(userAgentColumn, (entry) => entry.userAgent, false));
  const entityIdColumn = limits.get('entity_id');
  add(entityIdColumn, entityIdColumn && entityIdCheck(entityIdColumn));
  const detailsColumn = limits.get('details');
  add(detailsColumn, detailsColumn && detailsCheck(detailsColumn));

  const userAgentBound = userAgentColumn?.kind === 'text' ? boundOf(userAgentColumn) : undefined;
  return {
    refusalOf(entry) {
      for (const [column, check] of checks) {
        const reason = check(entry);
        if (reason !== undefined)
          return new ActivityStoreError('refused', 'COLUMN_LIMIT', `column ${column.name} (${column.type}): ${reason}`);
      }
      return undefined;
    },
    userAgent: (value) => (value === null || userAgentBound === undefined ? value : cutText(value, userAgentBound)),
  };
}

const NO_VALUE = 'no value, and the column takes no NULL';

function textCheck(column: ColumnLimit, valueOf: (entry: ActivityEntry) => string | undefined, length: boolean): Check | undefined {
  if (column.kind !== 'text') return column.nullable ? undefined : (entry) => (valueOf(entry) === undefined ? NO_VALUE : undefined);
  const tooLong = length ? lengthCheck(column) : undefined;
  const unstorable = column.charset?.unstorable;
  if (column.nullable && !tooLong && !unstorable) return undefined;
  return (entry) => {
    const value = valueOf(entry);
    if (value === undefined) return column.nullable ? undefined : NO_VALUE;
    if (unstorable?.test(value)) return `holds a character its character set (${column.charset?.name}) cannot store`;
    return tooLong?.(value);
  };
}

/** Too long for the column, measured as the column measures: characters or bytes of its charset. */
function lengthCheck(column: TextColumn): ((value: string) => string | undefined) | undefined {
  const { maxCharacters, maxBytes } = column;
  const encoding = column.charset?.encoding;
  const countsBytes = maxBytes !== undefined && encoding !== undefined;
  if (maxCharacters === undefined && !countsBytes) return undefined;
  const unitBytes = encoding === undefined ? 0 : bytesPerUnit(encoding);
  return (value) => {
    // UTF-16 units are at least the code points, and bound the bytes: most values are settled here.
    if (maxCharacters !== undefined && value.length > maxCharacters) {
      const characters = codePoints(value);
      if (characters > maxCharacters) return `too long: ${characters} > ${maxCharacters} characters`;
    }
    if (countsBytes && value.length * unitBytes > maxBytes) {
      const bytes = byteLength(value, encoding);
      if (bytes > maxBytes) return `too long: ${bytes} > ${maxBytes} bytes`;
    }
    return undefined;
  };
}

function entityIdCheck(column: ColumnLimit): Check | undefined {
  if (column.kind === 'integer') {
    const { min, max } = column;
    return (entry) =>
      entry.entityId < min || entry.entityId > max ? `the entity id is outside the column's range (${min} to ${max})` : undefined;
  }
  if (column.kind !== 'text') return undefined;
  const tooLong = lengthCheck(column);
  return tooLong && ((entry) => tooLong(entry.entityId.toString()));
}

function detailsCheck(column: ColumnLimit): Check | undefined {
  if (column.kind !== 'text') return column.nullable ? undefined : (entry) => (entry.details === null ? NO_VALUE : undefined);
  const unstorable = column.json ? column.charset?.unstorable : column.charset?.unstorableInJson;
  const tooLong = lengthCheck(column);
  if (column.nullable && !unstorable && !tooLong) return undefined;
  const maxSize = Math.min(column.maxCharacters ?? Infinity, column.maxBytes ?? Infinity);
  return (entry) => {
    const { details } = entry;
    if (details === null) return column.nullable ? undefined : NO_VALUE;
    const units = walkDetails(details, unstorable, 0);
    if (units === UNSTORABLE) return `holds a character its character set (${column.charset?.name}) cannot store`;
    // Stored as JSON text: serialized and measured only when a bound of its size could exceed the column's.
    return !tooLong || units * 6 <= maxSize ? undefined : tooLong(JSON.stringify(details));
  };
}

/** Deeper than this, details are looked at through their JSON text. */
const MAX_DEPTH = 16;
const UNSTORABLE = -1;

/**
 * One walk over the details: UNSTORABLE when a key or a text value matches `pattern`, else at least
 * as many UTF-16 units as their JSON text, divided by 6 (an escape `\uXXXX` is the most one unit
 * becomes): times 6, it bounds both the JSON's characters and its UTF-8 bytes.
 */
function walkDetails(value: unknown, pattern: RegExp | undefined, depth: number): number {
  if (typeof value === 'string') return pattern?.test(value) ? UNSTORABLE : value.length + 1;
  if (typeof value !== 'object' || value === null) return 5; // A number's or a literal's text, over 6.
  if (depth > MAX_DEPTH || 'toJSON' in value) {
    // Deep, or an object that writes itself (a Date): looked at through its JSON text.
    return pattern?.test(JSON.stringify(value)) ? UNSTORABLE : Infinity;
  }
  let units = 1;
  if (Array.isArray(value)) {
    for (const item of value) {
      const itemUnits = walkDetails(item, pattern, depth + 1);
      if (itemUnits === UNSTORABLE) return UNSTORABLE;
      units += itemUnits + 1;
    }
    return units;
  }
  for (const key in value) {
    if (pattern?.test(key)) return UNSTORABLE;
    const valueUnits = walkDetails((value as Record<string, unknown>)[key], pattern, depth + 1);
    if (valueUnits === UNSTORABLE) return UNSTORABLE;
    units += key.length + 2 + valueUnits;
  }
  return units;
}

function codePoints(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

function boundOf(column: TextColumn) {
  const encoding = column.charset?.encoding;
  return {
    maxCharacters: column.maxCharacters,
    maxBytes: encoding === undefined ? undefined : column.maxBytes,
    bytesOf: bytesOfCodePoint(encoding),
  };
}
