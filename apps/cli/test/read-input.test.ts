import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { csvCells, readInput } from '../src/read-input.js';
import { UsageError } from '../src/usage-error.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  const lines = [];
  for await (const line of readInput(path))
    lines.push('problem' in line ? line : { line: line.line, operation: line.operation, params: Object.fromEntries(line.params) });
  return lines;
}

describe('readInput', () => {
  it('reads CSV with a header: an empty cell is an absent parameter, quoted cells keep commas and quotes', async () => {
    const lines = await read(
      'a.csv',
      'operation,id,field,value,delete\r\nquotation,12,estado,"aprobado, con ""nota""",\nitem,7,,,1\n\nitem,8,cantidad,3,\n',
    );
    expect(lines).toEqual([
      { line: 2, operation: 'quotation', params: { id: '12', field: 'estado', value: 'aprobado, con "nota"' } },
      { line: 3, operation: 'item', params: { id: '7', delete: '1' } },
      { line: 5, operation: 'item', params: { id: '8', field: 'cantidad', value: '3' } },
    ]);
  });

  it('reports malformed CSV lines with their numbers, in order, and goes on', async () => {
    const lines = await read(
      'b.csv',
      'operation,id,field,value\nquotation,1,estado,x\nquotation,2\nsomething,3,estado,x\nquotation,4,estado,x\nquotation,,estado,x\n',
    );
    expect(lines.map((line) => ('problem' in line ? `${line.line}: ${line.problem}` : `${line.line} ok`))).toEqual([
      '2 ok',
      '3: the line has 2 cells, the header 4',
      '4: operation must be quotation or item, not "something"',
      '5 ok',
      '6: id is missing',
    ]);
  });

  it("an unclosed quote is its own line's problem: every line after it is read as its own (a cell never spans lines)", async () => {
    const lines = await read(
      'q.csv',
      'operation,id,field,value\nquotation,1,estado,x\nquotation,2,estado,"oops\nquotation,3,estado,y\nquotation,4,estado,"closed"\n',
    );
    expect(lines).toEqual([
      { line: 2, operation: 'quotation', params: { id: '1', field: 'estado', value: 'x' } },
      { line: 3, problem: 'a quote opened on line 3 is not closed on it (a cell cannot span lines)' },
      { line: 4, operation: 'quotation', params: { id: '3', field: 'estado', value: 'y' } },
      { line: 5, operation: 'quotation', params: { id: '4', field: 'estado', value: 'closed' } },
    ]);
  });

  it.each([
    ['a.csv', 'operation,id,field,value\n', 'quotation,1,estado,'],
    ['a.ndjson', '', '{"operation":"quotation","id":1,"field":"estado","value":"'],
  ])(
    '%s: bytes that are not UTF-8 make their line malformed, never sent as U+FFFD; a BOM starts the file only',
    async (name, head, start) => {
      const path = join(dir, `utf8-${name}`);
      const end = name.endsWith('.csv') ? '' : '"}';
      writeFileSync(
        path,
        Buffer.concat([
          Buffer.from(`\uFEFF${head}${start}ok${end}\n`),
          Buffer.from(start),
          Buffer.from([0x63, 0x61, 0x66, 0xe9]), // "café" in Latin-1
          Buffer.from(`${end}\n${start}\uFEFFjoined${end}\n${start}ñandú ✓${end}\n`),
        ]),
      );
      const lines = [];
      for await (const line of readInput(path))
        lines.push('problem' in line ? `${line.line}: ${line.problem}` : `${line.line}: ${line.params.get('value')}`);
      const first = head ? 2 : 1;
      expect(lines).toEqual([
        `${first}: ok`,
        `${first + 1}: not valid UTF-8: save the file as UTF-8`,
        `${first + 2}: a byte-order mark (U+FEFF) in the middle of the file: files joined together?`,
        `${first + 3}: ñandú ✓`,
      ]);
    },
  );

  it('a line over 1 MiB is malformed without being held, and the next line is read', async () => {
    const long = `{"operation":"quotation","id":1,"field":"estado","value":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const lines = await read('long.ndjson', `${long}\n{"operation":"quotation","id":2,"field":"estado","value":"y"}\n`);
    expect(lines).toEqual([
      { line: 1, problem: `the line is ${long.length} bytes long, more than 1048576` },
      { line: 2, operation: 'quotation', params: { id: '2', field: 'estado', value: 'y' } },
    ]);
  });

  it.each(['12345678901234567890', '9007199254740993', '1.50', '1e3', '-0', '1E+2'])(
    'NDJSON: the number %s would not be sent as written: malformed, not another id',
    async (number) => {
      const lines = await read(
        `n${number}.ndjson`,
        `{"operation":"item","id":${number},"delete":1}\n{"operation":"item","id":"${number}","delete":1,"value":"a 1.50 in \\"text\\""}\n`,
      );
      expect(lines).toEqual([
        { line: 1, problem: `the number ${number} would not be sent as written: write it as a string ("${number}")` },
        { line: 2, operation: 'item', params: { id: number, delete: '1', value: 'a 1.50 in "text"' } },
      ]);
    },
  );

  it('refuses a parameter the operation does not take', async () => {
    const lines = await read('c.csv', 'operation,id,idEmpresa\nitem,1,5\n');
    expect(lines).toEqual([{ line: 2, problem: 'item does not take "idEmpresa"' }]);
  });

  it('stops with a usage error on an unknown column or no operation column', async () => {
    await expect(read('d.csv', 'operation,id,valor\nquotation,1,x\n')).rejects.toThrow(UsageError);
    await expect(read('d.csv', 'operation,id,valor\nquotation,1,x\n')).rejects.toThrow(/unknown column "valor"/);
    await expect(read('e.csv', 'id,field\n1,x\n')).rejects.toThrow(/no "operation" column/);
  });

  it('reads NDJSON: numbers become strings, null is absent, bad lines are reported by number', async () => {
    const lines = await read(
      'f.ndjson',
      '{"operation":"quotation","id":12,"field":"benef_emp","idEmpresa":3,"idUsuario":null}\n\nnot json\n[1]\n{"operation":"item","id":"9","delete":"1"}\n{"operation":"item","id":1,"value":{"a":1}}\n',
    );
    expect(lines).toEqual([
      { line: 1, operation: 'quotation', params: { id: '12', field: 'benef_emp', idEmpresa: '3' } },
      { line: 3, problem: 'not valid JSON' },
      { line: 4, problem: 'not a JSON object' },
      { line: 5, operation: 'item', params: { id: '9', delete: '1' } },
      { line: 6, problem: 'value must be a string or a number' },
    ]);
  });
});

describe('csvCells', () => {
  // Quote-free, CR-free lines skip the parser: they must come out exactly as csv-parse reads them.
  const cell = fc.string({ unit: fc.constantFrom('a', 'ñ', ' ', '\t', ',', "'", '=', '\u2028', '😀', '\\', ';') });
  it('reads a line without quotes or carriage returns as csv-parse does', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (cells) => {
        const text = cells.join(',');
        fc.pre(text !== '');
        const records: string[][] = parse(text, { relax_column_count: true });
        expect(csvCells(text, 2)).toEqual(records[0]);
      }),
      { numRuns: 2_000 },
    );
  });

  it('still parses quoted cells and refuses a quote left open', () => {
    expect(csvCells('a,"b,""c""",d', 2)).toEqual(['a', 'b,"c"', 'd']);
    expect(csvCells('a,b\rc', 2)).toEqual(['a', 'b']);
    expect(() => csvCells('a,"b', 3)).toThrow(new UsageError('a quote opened on line 3 is not closed on it (a cell cannot span lines)'));
  });
});
