import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '@cotizaciones/core';
import { ARCHIVE_QUOTATION, inMemoryActivityLog, inMemoryUpstream } from '@cotizaciones/core/testing';
import { isMalformed, lineReader, toInputLine } from '../src/change-line.js';
import { lineRunner } from '../src/line-runner.js';

// The "add an operation" recipe (docs/recipes.md) on the CLI's side: an operation that exists only in
// tests is read from a file's record by its lineName and its columns, and run through its use case.
const identity = { userId: '7', runId: 'run-1', userAgent: 'cli-test' };
const catalog = [...OPERATIONS, ARCHIVE_QUOTATION];

describe('an operation added to the catalog, in a bulk file', () => {
  it('is read by its lineName with its own columns, and sent upstream and audited through its use case', async () => {
    const reader = lineReader(catalog);
    expect([...reader.columns]).toEqual(expect.arrayContaining(['operation', 'reason']));
    const line = reader.toInputLine(2, { operation: 'archive', id: '12', reason: 'duplicada' }, () => 1);
    if (isMalformed(line)) throw new Error(line.problem);

    const upstream = inMemoryUpstream();
    const activityLog = inMemoryActivityLog();
    const result = await lineRunner({ upstream, tokens: { token: () => Promise.resolve('tok') }, activityLog }, identity, catalog)(line);

    expect(result).toEqual({ line: 2, outcome: 'ok', message: '' });
    expect(upstream.calls).toEqual([
      expect.objectContaining({ path: '/api/cotizaciones/archive', payload: { id: '12', reason: 'duplicada' }, token: 'tok' }),
    ]);
    expect(activityLog.entries).toEqual([
      expect.objectContaining({ eventKey: 'cotizaciones.archive', entityId: 12n, details: { reason: 'duplicada' }, userId: '7' }),
    ]);
  });

  it('is refused by the reader of the real catalog, which does not have it', () => {
    expect(toInputLine(2, { operation: 'archive', id: '12' }, () => 1)).toEqual({
      line: 2,
      problem: 'operation must be quotation or item, not "archive"',
    });
  });
});
