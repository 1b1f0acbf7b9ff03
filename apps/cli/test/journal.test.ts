import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryRecord } from '@cotizaciones/adapters';
import { sampleEntry, temporaryDirs } from '@cotizaciones/adapters/testing';
import { changeLine } from '../src/change-line.js';
import { openJournal } from '../src/journal.js';

const dir = temporaryDirs()('cli-journal-');
const TARGET = 'http://upstream.test/';
const line = (at: number, id: string, occurrence = 1) =>
  changeLine(
    at,
    'quotation',
    new Map([
      ['id', id],
      ['field', 'estado'],
      ['value', 'x'],
    ]),
    () => occurrence,
  );

describe('the journal', () => {
  it('records a line by its content and occurrence, and says at which line number it was applied', () => {
    const path = join(dir, 'new.journal');
    const journal = openJournal(path, TARGET, 'run-1');
    journal.record(line(2, '1'));
    journal.record(line(5, '1', 2));
    journal.close();
    expect(readFileSync(path, 'utf8').split('\n').slice(2, 4)).toEqual([`${line(2, '1').hash}:1\t2`, `${line(2, '1').hash}:2\t5`]);
    const again = openJournal(path, TARGET, 'run-2');
    expect(again.runId).toBe('run-1');
    expect(again.byLineNumber).toBe(0);
    expect(again.appliedAt(line(9, '1'))).toBe(2);
    expect(again.appliedAt(line(3, '1', 2))).toBe(5);
    expect(again.appliedAt(line(4, '1', 3))).toBeUndefined();
    expect(again.appliedAt(line(2, '2'))).toBeUndefined();
    again.close();
  });

  it("reads an earlier version's journal (lines by number): each record is its content's next occurrence, its pending entries kept", () => {
    const path = join(dir, 'earlier.journal');
    const [a, b] = [line(3, '1').hash, line(4, '2').hash];
    const entry = { ...sampleEntry(), requestId: 'run-old:4' };
    writeFileSync(
      path,
      `# applied to ${TARGET}\n# run run-old\n3\t${a}\n7\t${a}\n# audited 2\n4\t${b}\t${JSON.stringify(entryRecord(entry))}\n`,
    );
    const journal = openJournal(path, TARGET, 'run-new');
    expect(journal).toMatchObject({ runId: 'run-old', byLineNumber: 3, recorded: 3 });
    expect(journal.pending.map((pending) => pending.requestId)).toEqual(['run-old:4']);
    expect(journal.appliedAt(line(2, '1'))).toBe(3);
    expect(journal.appliedAt(line(8, '1', 2))).toBe(7);
    expect(journal.appliedAt(line(9, '1', 3))).toBeUndefined();
    expect(journal.appliedAt(line(5, '2'))).toBe(4);
    // What this version appends after them reads back with them.
    journal.record(line(9, '1', 3));
    journal.close();
    const again = openJournal(path, TARGET, 'run-new');
    expect(again).toMatchObject({ byLineNumber: 3, recorded: 4 });
    expect(again.appliedAt(line(9, '1', 3))).toBe(9);
    again.close();
  });

  it("is its owner's only (0600) under a umask of 022: it holds the pending audit entries", () => {
    const path = join(dir, 'private.journal');
    const umask = process.umask(0o022);
    try {
      openJournal(path, TARGET, 'run-1').close();
    } finally {
      process.umask(umask);
    }
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
  });
});
