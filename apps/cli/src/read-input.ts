import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse, type CsvError } from 'csv-parse';
import { COLUMNS, toInputLine, type InputLine, type MalformedLine } from './change-line.js';
import { UsageError } from './usage-error.js';

const MAX_RECORD_BYTES = 1024 * 1024;

/** The lines of a change file, in order: NDJSON for `.ndjson`/`.jsonl`, CSV with a header row otherwise. */
export function readInput(path: string): AsyncGenerator<InputLine> {
  return /\.(ndjson|jsonl)$/i.test(path) ? readNdjson(path) : readCsv(path);
}

async function* readNdjson(path: string): AsyncGenerator<InputLine> {
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    line += 1;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      yield { line, problem: 'not valid JSON' };
      continue;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) yield { line, problem: 'not a JSON object' };
    else yield toInputLine(line, record as Record<string, unknown>);
  }
}

async function* readCsv(path: string): AsyncGenerator<InputLine> {
  // Records csv-parse cannot read (a wrong number of cells, a broken quote) are skipped and reported in order.
  const skipped: MalformedLine[] = [];
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => checkHeader(header),
      info: true,
      // Files edited on different systems mix line endings.
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
      skip_records_with_error: true,
      // Bounds the memory an unclosed quote can take (it turns the rest of the file into one cell); no request body is larger.
      max_record_size: MAX_RECORD_BYTES,
      on_skip: (error: CsvError | undefined) => {
        if (error) skipped.push({ line: Number(error.lines), problem: csvProblem(error) });
      },
    }),
  );
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    while (skipped.length && skipped[0]!.line < info.lines) yield skipped.shift()!;
    yield toInputLine(info.lines, record);
  }
  yield* skipped;
}

function checkHeader(header: string[]): string[] {
  const unknown = header.filter((name) => !COLUMNS.has(name));
  if (unknown.length) throw new UsageError(`unknown column ${unknown.map((name) => JSON.stringify(name)).join(', ')} (columns: ${[...COLUMNS].join(', ')})`);
  if (!header.includes('operation')) throw new UsageError('the header row has no "operation" column');
  return header;
}

function csvProblem(error: CsvError): string {
  if (error.code === 'CSV_QUOTE_NOT_CLOSED' || error.code === 'CSV_MAX_RECORD_SIZE') {
    return 'a quote opened here is never closed: nothing after this line was read';
  }
  const cells = /columns length is (\d+), got (\d+)/.exec(error.message);
  return cells ? `the line has ${cells[2]} cells, the header ${cells[1]}` : error.message.replace(/ on line \d+$/, '');
}
