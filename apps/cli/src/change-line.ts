import { hash } from 'node:crypto';
import { OPERATIONS, paramNames, type Operation } from '@cotizaciones/core';

/** One line of the input file, ready for its use case. */
export interface ChangeLine {
  /** Line number in the file (1 = the first line, a CSV header included). */
  readonly line: number;
  /** The operation's `lineName` in the core's catalog. */
  readonly operation: string;
  /** The parameters present on the line; an absent one is not a key. */
  readonly params: ReadonlyMap<string, string>;
  /**
   * What the line asks for, as a short hash of its operation and its parameters sorted by name
   * (empty cells absent): an edited line gets another, an unchanged one the same, whatever its
   * cells' order, the file's format or its line endings.
   */
  readonly hash: string;
  /** Which line with this content it is in the file, from 1: with the hash, the line's identity (line-identity.ts). */
  readonly occurrence: number;
}

/** A line that cannot be sent, and why. */
export interface MalformedLine {
  readonly line: number;
  readonly problem: string;
}

export type InputLine = ChangeLine | MalformedLine;

export const isMalformed = (line: InputLine): line is MalformedLine => 'problem' in line;

/** What a file may hold for a catalog of operations: its columns, and the check of one record. */
export interface LineReader {
  /** Every column a file may have. */
  readonly columns: ReadonlySet<string>;
  /**
   * Checks one record (column → cell) of either file format. Empty cells and
   * nulls are absent parameters; a parameter the operation does not read is an
   * error, so a misspelt column never silently changes nothing.
   */
  readonly toInputLine: (line: number, record: Readonly<Record<string, unknown>>, occurrenceOf: (hash: string) => number) => InputLine;
}

/** The lines `operations` can be asked for by, each by its `lineName` (the name operations staff write in the file). */
export function lineReader(operations: readonly Operation[]): LineReader {
  const byLineName: ReadonlyMap<string, Operation> = new Map(operations.map((operation) => [operation.lineName, operation]));
  return {
    columns: new Set(['operation', ...operations.flatMap((operation) => paramNames(operation))]),
    toInputLine: (line, record, occurrenceOf) => checkedLine(byLineName, line, record, occurrenceOf),
  };
}

const CATALOG_LINES = lineReader(OPERATIONS);
/** Every column a file may have (the core's catalog). */
export const COLUMNS = CATALOG_LINES.columns;
export const toInputLine = CATALOG_LINES.toInputLine;

function checkedLine(
  byLineName: ReadonlyMap<string, Operation>,
  line: number,
  record: Readonly<Record<string, unknown>>,
  occurrenceOf: (hash: string) => number,
): InputLine {
  const operation = record.operation;
  const known = typeof operation === 'string' ? byLineName.get(operation) : undefined;
  if (typeof operation !== 'string' || !known) {
    return { line, problem: `operation must be ${[...byLineName.keys()].join(' or ')}, not ${JSON.stringify(operation ?? '')}` };
  }
  const allowed: readonly string[] = paramNames(known);
  const params = new Map<string, string>();
  for (const [name, value] of Object.entries(record)) {
    if (name === 'operation' || value === '' || value === null || value === undefined) continue;
    if (!allowed.includes(name)) return { line, problem: `${operation} does not take ${JSON.stringify(name)}` };
    if (typeof value !== 'string' && typeof value !== 'number') return { line, problem: `${name} must be a string or a number` };
    params.set(name, String(value));
  }
  if (!params.has('id')) return { line, problem: 'id is missing' };
  return changeLine(line, operation, params, occurrenceOf);
}

/**
 * A line that can be sent, its hash computed once and its occurrence counted by `occurrenceOf` (one
 * counter per file): the journal and the idempotency key both use them.
 */
export function changeLine(
  line: number,
  operation: string,
  params: ReadonlyMap<string, string>,
  occurrenceOf: (hash: string) => number,
): ChangeLine {
  const content = JSON.stringify([operation, [...params].sort(([a], [b]) => (a < b ? -1 : 1))]);
  const digest = hash('sha256', content, 'hex').slice(0, 32);
  return { line, operation, params, hash: digest, occurrence: occurrenceOf(digest) };
}
