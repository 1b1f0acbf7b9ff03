import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openResultsFile } from '../src/results-file.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the results file', () => {
  // Plain messages skip csv-stringify: every row must still be exactly the library's.
  it('writes each row as csv-stringify does, whatever the message holds', () => {
    const message = fc.string({ unit: fc.constantFrom('a', 'ñ', ' ', ',', '"', '\n', '\r', "'", '=', '-', '\t', '😀') });
    let run = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(1_000_000), fc.constantFrom('ok', 'rejected', 'failed'), message), { maxLength: 20 }),
        (rows) => {
          const path = join(dir, `${(run += 1)}.csv`);
          const results = openResultsFile(path);
          for (const [line, outcome, text] of rows) results.write({ line, outcome, message: text });
          results.close();
          expect(readFileSync(path, 'utf8')).toBe(`line,outcome,message\n${rows.map((row) => stringify([row])).join('')}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is its owner's only (0600) under a umask of 022, like every file the CLI creates", () => {
    const path = join(dir, 'private.csv');
    const umask = process.umask(0o022);
    try {
      openResultsFile(path).close();
    } finally {
      process.umask(umask);
    }
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
  });
});
