import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyLines, type ApplyParts } from '../src/apply-lines.js';
import { changeLine, type ChangeLine, type InputLine } from '../src/change-line.js';
import { openJournal, type Journal } from '../src/journal.js';
import type { LineResult } from '../src/line-result.js';
import { openResultsFile } from '../src/results-file.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-apply-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Lines of distinct content: each the first of its content.
const change = (line: number, id = String(line)): ChangeLine =>
  changeLine(
    line,
    'quotation',
    new Map([
      ['id', id],
      ['field', 'estado'],
      ['value', 'x'],
    ]),
    () => 1,
  );
// Lines as the file reader gives them: one at a time, asynchronously.
async function* lines(list: InputLine[]) {
  for (const line of list) yield await Promise.resolve(line);
}
const quiet = { update: () => undefined, finish: () => undefined };
const noPace = () => Promise.resolve();

function parts(
  name: string,
  run: ApplyParts['run'],
  journal = openJournal(join(dir, `${name}.journal`), 'http://upstream.test/', `run-${name}`),
): ApplyParts & { resultsPath: string; journal: Journal } {
  const resultsPath = join(dir, `${name}.csv`);
  return { run, journal, results: openResultsFile(resultsPath), progress: quiet, resultsPath };
}

describe('applyLines', () => {
  it('keeps at most `concurrency` lines in flight and writes one result row per line', async () => {
    let inFlight = 0;
    let most = 0;
    const run = async (line: ChangeLine): Promise<LineResult> => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return {
        line: line.line,
        outcome: line.line % 5 === 0 ? 'rejected' : 'ok',
        message: line.line % 5 === 0 ? 'No existe, "cotización"' : '',
      };
    };
    const p = parts('concurrency', run);
    const summary = await applyLines(
      lines(Array.from({ length: 20 }, (_, i) => change(i + 2))),
      { concurrency: 3, pace: noPace, signal: new AbortController().signal },
      p,
    );
    p.results.close();
    expect(most).toBe(3);
    expect(summary).toMatchObject({ interrupted: false, allSucceeded: false, counts: { ok: 16, rejected: 4 } });
    const rows = readFileSync(p.resultsPath, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('line,outcome,message');
    expect(rows).toHaveLength(21);
    expect(rows).toContain('5,rejected,"No existe, ""cotización"""');
  });

  it('reports malformed lines without running them, and a line that throws as failed', async () => {
    const ran: number[] = [];
    const run = (line: ChangeLine): Promise<LineResult> => {
      ran.push(line.line);
      return line.line === 4 ? Promise.reject(new Error('boom')) : Promise.resolve({ line: line.line, outcome: 'ok', message: '' });
    };
    const p = parts('malformed', run);
    const summary = await applyLines(
      lines([change(2), { line: 3, problem: 'id is missing' }, change(4)]),
      { concurrency: 2, pace: noPace, signal: new AbortController().signal },
      p,
    );
    p.results.close();
    expect(ran).toEqual([2, 4]);
    expect(summary.counts).toMatchObject({ ok: 1, malformed: 1, failed: 1 });
    expect(readFileSync(p.resultsPath, 'utf8')).toContain('3,malformed,id is missing\n');
    expect(readFileSync(p.resultsPath, 'utf8')).toContain('4,failed,boom\n');
  });

  it('a rerun skips the lines the journal says were applied, and applies a line whose content changed', async () => {
    const journalPath = join(dir, 'rerun.journal');
    const ok = (line: ChangeLine): Promise<LineResult> =>
      Promise.resolve({ line: line.line, outcome: line.line === 3 ? 'failed' : 'ok', message: '' });
    const first = parts('rerun-1', ok, openJournal(journalPath, 'http://upstream.test/', 'run-first'));
    expect(first.journal?.runId).toBe('run-first');
    await applyLines(
      lines([change(2), change(3), change(4)]),
      { concurrency: 1, pace: noPace, signal: new AbortController().signal },
      first,
    );
    first.journal?.close();

    const ran: number[] = [];
    const second = parts(
      'rerun-2',
      (line) => (ran.push(line.line), ok(line)),
      openJournal(journalPath, 'http://upstream.test/', 'run-second'),
    );
    // The rerun goes on with the first run's id: its unchanged lines keep their idempotency keys.
    expect(second.journal?.runId).toBe('run-first');
    const summary = await applyLines(
      lines([change(2), change(3), change(4, '44')]),
      { concurrency: 1, pace: noPace, signal: new AbortController().signal },
      second,
    );
    expect(ran).toEqual([3, 4]);
    expect(summary.counts).toMatchObject({ skipped: 1 });
    expect(summary.moved).toBe(0);
  });

  it('a rerun knows lines by content, not number: a line inserted at the top is the only one run; the others are skipped and counted as moved', async () => {
    const journalPath = join(dir, 'moved.journal');
    const ok = (line: ChangeLine): Promise<LineResult> => Promise.resolve({ line: line.line, outcome: 'ok', message: '' });
    const first = parts('moved-1', ok, openJournal(journalPath, 'http://upstream.test/', 'run-moved'));
    await applyLines(
      lines([change(2), change(3), change(4)]),
      { concurrency: 1, pace: noPace, signal: new AbortController().signal },
      first,
    );
    first.journal.close();

    const ran: number[] = [];
    const second = parts(
      'moved-2',
      (line) => (ran.push(line.line), ok(line)),
      openJournal(journalPath, 'http://upstream.test/', 'run-other'),
    );
    const summary = await applyLines(
      lines([change(2, '99'), change(3, '2'), change(4, '3'), change(5, '4')]),
      { concurrency: 1, pace: noPace, signal: new AbortController().signal },
      second,
    );
    second.results.close();
    expect(ran).toEqual([2]);
    expect(summary).toMatchObject({ counts: { ok: 1, skipped: 3 }, moved: 3, allSucceeded: true });
    expect(readFileSync(second.resultsPath, 'utf8')).toContain('3,skipped,applied by an earlier run (as line 2)\n');
  });

  it('a results file that cannot be written (a full disk) stops the run: no new line starts, those in flight finish, the error comes out', async () => {
    const ran: number[] = [];
    const run = (line: ChangeLine): Promise<LineResult> => (
      ran.push(line.line),
      Promise.resolve({ line: line.line, outcome: 'ok', message: '' })
    );
    let writes = 0;
    const full = {
      write: () => {
        if (++writes === 3) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
      flush: () => undefined,
      close: () => undefined,
    };
    const p = { run, journal: undefined, results: full, progress: quiet };
    await expect(
      applyLines(
        lines(Array.from({ length: 50 }, (_, i) => change(i + 2))),
        { concurrency: 1, pace: noPace, signal: new AbortController().signal },
        p,
      ),
    ).rejects.toThrow('ENOSPC');
    expect(ran.length).toBeLessThan(6);
  });

  it('after an abort starts no new line, lets those in flight finish, and says it was interrupted', async () => {
    const stop = new AbortController();
    const finished: number[] = [];
    const run = async (line: ChangeLine): Promise<LineResult> => {
      if (line.line === 3) stop.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
      finished.push(line.line);
      return { line: line.line, outcome: 'ok', message: '' };
    };
    const p = parts('abort', run);
    const summary = await applyLines(
      lines(Array.from({ length: 10 }, (_, i) => change(i + 2))),
      { concurrency: 2, pace: noPace, signal: stop.signal },
      p,
    );
    expect(finished.sort()).toEqual([2, 3]);
    expect(summary).toMatchObject({ interrupted: true, allSucceeded: false, counts: { ok: 2 } });
  });
});
