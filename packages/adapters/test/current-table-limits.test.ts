import { describe, expect, it } from 'vitest';
import { currentTableLimits } from '../src/activity-log/current-table-limits.js';
import { mysqlColumnLimit, type TableLimits } from '../src/activity-log/table-limits.js';
import { sampleEntry } from '../src/testing/index.js';

const userId = (chars: number): TableLimits =>
  new Map([
    [
      'user_id',
      mysqlColumnLimit({
        name: 'user_id',
        dataType: 'varchar',
        columnType: `varchar(${chars})`,
        maxCharacters: chars,
        maxBytes: chars * 4,
        charset: 'utf8mb4',
        nullable: 'NO',
      }),
    ],
  ]);

/** A scripted information_schema: each read answers the next limits, counted. */
function scriptedReads(...answers: TableLimits[]) {
  let reads = 0;
  return {
    read: () => Promise.resolve(answers[Math.min(reads++, answers.length - 1)] ?? new Map()),
    reads: () => reads,
  };
}

const columnError = (error: unknown) => error === 'column';
const long = sampleEntry({ userId: 'u'.repeat(20) });

describe('the table limits as last read', () => {
  it('read again after a write fails for a column reason, not for another', async () => {
    const script = scriptedReads(userId(64), userId(10));
    const limits = await currentTableLimits(script.read, { isColumnError: columnError, maxAgeMs: 60_000 });
    expect(limits.refusalOf(long)).toBeUndefined();
    limits.writeFailed('connection lost');
    await limits.settled();
    expect(script.reads()).toBe(1);
    limits.writeFailed('column');
    limits.writeFailed('column');
    await limits.settled();
    expect(script.reads()).toBe(2); // One read at a time.
    expect(limits.refusalOf(long)?.message).toBe('column user_id (varchar(10)): too long: 20 > 10 characters');
  });

  it('a refusal reads them again only once they are older than their age', async () => {
    let now = 0;
    const script = scriptedReads(userId(10), userId(64));
    const limits = await currentTableLimits(script.read, { isColumnError: columnError, maxAgeMs: 60_000, now: () => now });
    now = 59_999;
    expect(limits.refusalOf(long)).toBeDefined();
    await limits.settled();
    expect(script.reads()).toBe(1);
    now = 60_000;
    expect(limits.refusalOf(long)).toBeDefined();
    await limits.settled();
    expect(script.reads()).toBe(2);
    expect(limits.refusalOf(long)).toBeUndefined();
  });

  it('a failed read keeps the limits it had', async () => {
    let fail = false;
    const limits = await currentTableLimits(() => (fail ? Promise.reject(new Error('gone')) : Promise.resolve(userId(10))), {
      isColumnError: columnError,
      maxAgeMs: 0,
    });
    fail = true;
    expect(limits.refusalOf(long)).toBeDefined();
    await limits.settled();
    expect(limits.refusalOf(long)).toBeDefined();
  });
});
