import { describe, expect, it } from 'vitest';
import type { Summary } from '../src/apply-lines.js';
import { reportLines, type RunReport } from '../src/run-report.js';

const summary = (over: Partial<Summary> = {}): Summary => ({
  counts: { ok: 1, rejected: 0, failed: 0, invalid: 0, malformed: 0, skipped: 10, 'dry-run': 0 },
  interrupted: false,
  allSucceeded: true,
  moved: 0,
  ...over,
});
const report = (over: Partial<RunReport> = {}): RunReport => ({
  title: 'run cli-x as user 7',
  summary: summary(),
  gaveUp: false,
  resultsPath: 'f.csv.results.csv',
  audit: { setAside: 0, lost: 0 },
  deadLetterPath: 'dead.jsonl',
  deadLetterArg: 'dead.jsonl',
  resume: 'to resume, run: cotizaciones apply f.csv --as 7',
  rowsNotShown: 0,
  ...over,
});

describe('the summary', () => {
  it('is one line of counts when nothing else applies', () => {
    expect(reportLines(report())).toEqual(['run cli-x as user 7: 1 ok, 10 skipped; results in f.csv.results.csv']);
  });

  it('says how many skipped lines were at another line number, only when some were', () => {
    expect(reportLines(report({ summary: summary({ moved: 1 }) }))[1]).toBe(
      'journal: 1 of the skipped lines was at another line number when applied (lines inserted, removed or moved since): known by their content, not sent again',
    );
  });

  it('names failed lines and set-aside entries both, then the command to resume', () => {
    const counts = { ...summary().counts, failed: 2 };
    const lines = reportLines(
      report({ summary: summary({ counts, allSucceeded: false, interrupted: true }), audit: { setAside: 2, lost: 0 } }),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('run cli-x as user 7: 1 ok, 2 failed, 10 skipped; interrupted; results in f.csv.results.csv');
    expect(lines[1]).toMatch(
      /^audit: 2 entries could not be written to the activity log and were set aside in dead\.jsonl; .*replay-dead-letter dead\.jsonl$/,
    );
    expect(lines[2]).toBe('to resume, run: cotizaciones apply f.csv --as 7');
  });
});
