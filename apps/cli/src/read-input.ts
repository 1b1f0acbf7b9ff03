import { parse, CsvError } from 'csv-parse/sync';
import { COLUMNS, toInputLine, type InputLine } from './change-line.js';
import { occurrenceCounter } from './line-identity.js';
import { rawLines } from './raw-lines.js';
import { UsageError } from './usage-error.js';

/** No request body is larger: a longer line is malformed, and never held whole. */
const MAX_LINE_BYTES = 1024 * 1024;
const BOM = '\uFEFF';

/**
 * The lines of a change file, in order: NDJSON for `.ndjson`/`.jsonl`, CSV with a header row
 * otherwise. Every non-empty line is one change or one malformed line, whatever the others hold:
 * bytes that are not UTF-8, a byte-order mark past the file's start, a line over the bound, a
 * quote not closed on its line (a CSV cell never spans lines), or an NDJSON number that would not
 * be sent as written.
 */
export async function* readInput(path: string): AsyncGenerator<InputLine> {
  const ndjson = /\.(ndjson|jsonl)$/i.test(path);
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const occurrenceOf = occurrenceCounter();
  let header: string[] | undefined;
  for await (const raw of rawLines(path, MAX_LINE_BYTES)) {
    const { line } = raw;
    if ('tooLong' in raw) {
      yield { line, problem: `the line is ${raw.tooLong} bytes long, more than ${MAX_LINE_BYTES}` };
      continue;
    }
    let text: string;
    try {
      text = utf8.decode(raw.bytes);
    } catch {
      yield { line, problem: 'not valid UTF-8: save the file as UTF-8' };
      continue;
    }
    if (line === 1 && text.startsWith(BOM)) text = text.slice(1);
    if (text.includes(BOM)) {
      yield { line, problem: 'a byte-order mark (U+FEFF) in the middle of the file: files joined together?' };
      continue;
    }
    if (text.trim() === '') continue;
    if (ndjson) yield ndjsonLine(line, text, occurrenceOf);
    else if (header === undefined) header = checkHeader(csvCells(text, line));
    else yield csvLine(line, text, header, occurrenceOf);
  }
}

/**
 * Why the file cannot be read at all (a CSV header with an unknown column, or none naming the
 * operation), found before a run opens anything: a refused run writes no results file or journal.
 */
export async function inputRefusal(path: string): Promise<string | undefined> {
  const lines = readInput(path);
  try {
    await lines.next();
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  } finally {
    await lines.return(undefined);
  }
}

function ndjsonLine(line: number, text: string, occurrenceOf: (hash: string) => number): InputLine {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return { line, problem: 'not valid JSON' };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { line, problem: 'not a JSON object' };
  const inexact = inexactNumber(text);
  if (inexact !== undefined)
    return { line, problem: `the number ${inexact} would not be sent as written: write it as a string ("${inexact}")` };
  return toInputLine(line, record as Record<string, unknown>, occurrenceOf);
}

/**
 * The first number in a JSON text that JavaScript would not give back as written (past 2^53, or
 * written `1.50`, `1e3`, `-0`): parameters are sent as the text of their values, and an id must
 * never become another id.
 */
function inexactNumber(text: string): string | undefined {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string, and its escapes.
      for (i += 1; i < text.length && text.charCodeAt(i) !== 34; i += 1) if (text.charCodeAt(i) === 92) i += 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      number.lastIndex = i;
      const token = number.exec(text)?.[0] ?? '';
      if (String(Number(token)) !== token) return token;
      i += token.length - 1;
    }
  }
  return undefined;
}

function csvLine(line: number, text: string, header: string[], occurrenceOf: (hash: string) => number): InputLine {
  let cells: string[];
  try {
    cells = csvCells(text, line);
  } catch (error) {
    if (error instanceof UsageError) return { line, problem: error.message };
    throw error;
  }
  if (cells.length !== header.length) return { line, problem: `the line has ${cells.length} cells, the header ${header.length}` };
  return toInputLine(line, Object.fromEntries(header.map((name, i) => [name, cells[i]])), occurrenceOf);
}

/** Where csv-parse reads anything but a comma as special: quotes, and a carriage return (a record delimiter). */
const SPECIAL = /["\r]/;

/** One line's cells. A quote left open is this line's problem alone: the next line is read as its own. */
export function csvCells(text: string, line: number): string[] {
  // Without a quote or a carriage return, csv-parse's cells are the text split at its commas: the
  // same, without the parser's set-up on every line (most of what reading a line cost).
  if (!SPECIAL.test(text)) return text.split(',');
  try {
    const records: string[][] = parse(text, { relax_column_count: true });
    const [cells = []] = records;
    return cells;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    if (error.code === 'CSV_QUOTE_NOT_CLOSED')
      throw new UsageError(`a quote opened on line ${line} is not closed on it (a cell cannot span lines)`);
    throw new UsageError(error.message.replace(/ on line \d+$/, ''));
  }
}

function checkHeader(header: string[]): string[] {
  const unknown = header.filter((name) => !COLUMNS.has(name));
  if (unknown.length)
    throw new UsageError(`unknown column ${unknown.map((name) => JSON.stringify(name)).join(', ')} (columns: ${[...COLUMNS].join(', ')})`);
  if (!header.includes('operation')) throw new UsageError('the header row has no "operation" column');
  return header;
}
