import { hash } from 'node:crypto';
import { OPERATIONS, paramNames, type Operation } from '@cotizaciones/core';

/** The operations a line can ask for, by the name operations staff write in the file (the core's catalog). */
const BY_LINE_NAME: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((operation) => [operation.lineName, operation]));

/** Every column a file may have. */
export const COLUMNS: ReadonlySet<string> = new Set(['operation', ...OPERATIONS.flatMap((operation) => paramNames(operation))]);

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

/**
 * Checks one record (column → cell) of either file format. Empty cells and
 * nulls are absent parameters; a parameter the operation does not read is an
 * error, so a misspelt column never silently changes nothing.
 */
export function toInputLine(line: number, record: Readonly<Record<string, unknown>>, occurrenceOf: (hash: string) => number): InputLine {
  const operation = record.operation;
  const known = typeof operation === 'string' ? BY_LINE_NAME.get(operation) : undefined;
  if (typeof operation !== 'string' || !known) {
    return { line, problem: `operation must be ${[...BY_LINE_NAME.keys()].join(' or ')}, not ${JSON.stringify(operation ?? '')}` };
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
export function changeLine(line: number, operation: string, params: ReadonlyMap<string, string>, occurrenceOf: (hash: string) => number): ChangeLine {
  const content = JSON.stringify([operation, [...params].sort(([a], [b]) => (a < b ? -1 : 1))]);
  const digest = hash('sha256', content, 'hex').slice(0, 32);
  return { line, operation, params, hash: digest, occurrence: occurrenceOf(digest) };
}
