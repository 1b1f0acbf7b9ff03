import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, bufferedActivityLog, deadLetterFile, type DeadLetter } from '../src/index.js';
import { openSpool } from '../src/activity-log/activity-spool.js';
import { lockedByName } from '../src/fs/locked-by-name.js';
import type * as LockedByName from '../src/fs/locked-by-name.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

// Each append opens the file by name under its shared lock: the opens count the appends.
vi.mock('../src/fs/locked-by-name.js', async (importOriginal) => {
  const actual = await importOriginal<typeof LockedByName>();
  return { ...actual, lockedByName: vi.fn(actual.lockedByName) };
});

const temporaryDir = temporaryDirs();
const refusal = { code: 'QUEUE_FULL', reason: 'the queue was full' };
const entry = (n: number) => sampleEntry({ entityId: BigInt(n), requestId: `req-${n}` });
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

beforeEach(() => {
  vi.mocked(lockedByName).mockClear();
});

describe('the dead-letter file groups its appends', () => {
  it('1 000 entries set aside in one turn: one append', async () => {
    const file = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    const deadLetter = deadLetterFile(file);
    const kept = await Promise.all(Array.from({ length: 1_000 }, (_, i) => deadLetter.append(entry(i + 1), refusal)));
    await deadLetter.close();
    expect(kept.every(Boolean)).toBe(true);
    expect(lines(file)).toHaveLength(1_000);
    expect(vi.mocked(lockedByName)).toHaveBeenCalledTimes(1);
  });

  it('entries set aside over 50 turns while appends are under way: at most one append per turn, each line once, in order', async () => {
    const file = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    const deadLetter = deadLetterFile(file);
    const appended: Array<Promise<boolean>> = [];
    for (let t = 0; t < 50; t += 1) {
      for (let i = 1; i <= 20; i += 1) appended.push(deadLetter.append(entry(t * 20 + i), refusal));
      await turn();
    }
    await Promise.all(appended);
    await deadLetter.close();
    expect(lines(file).map((line) => (JSON.parse(line) as { entry: { entityId: string } }).entry.entityId)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => String(i + 1)),
    );
    expect(vi.mocked(lockedByName).mock.calls.length).toBeLessThanOrEqual(50);
  });

  it('the bound is kept within a group: lines past it dropped, one set aside at close kept whatever the bound', async () => {
    const file = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    const deadLetter = deadLetterFile(file, { maxBytes: 3_000 });
    const kept = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => deadLetter.append(entry(i + 1), refusal)),
      deadLetter.append(entry(99), refusal, { bounded: false }),
    ]);
    await deadLetter.close();
    const stored = lines(file);
    expect(vi.mocked(lockedByName)).toHaveBeenCalledTimes(1);
    expect(stored).toHaveLength(kept.filter(Boolean).length);
    expect(kept.slice(0, 20).filter(Boolean).length).toBeGreaterThan(0);
    expect(kept.slice(0, 20).filter(Boolean).length).toBeLessThan(20);
    expect(kept.at(-1)).toBe(true);
    expect(
      Buffer.byteLength(
        stored
          .slice(0, -1)
          .map((line) => `${line}\n`)
          .join(''),
      ),
    ).toBeLessThanOrEqual(3_000);
    expect(JSON.parse(stored.at(-1)!)).toMatchObject({ entry: { entityId: '99' } });
  });
});

describe('entries waiting for the dead-letter file count in the queue bound', () => {
  it('the store down, the dead-letter file slow, 500 entries of ~8 KB for a bound of 700 000 bytes: what waits for it never passes the bound; each entry is written, set aside or left in the spool', async () => {
    const pending: Array<{ entry: ActivityEntry; done: (kept: boolean) => void }> = [];
    let mostPendingBytes = 0;
    const set: ActivityEntry[] = [];
    const slow: DeadLetter = {
      append(entry) {
        return new Promise<boolean>((resolve) => {
          pending.push({
            entry,
            done: (kept) => {
              set.push(entry);
              resolve(kept);
            },
          });
        });
      },
      close: () => Promise.resolve(),
      size: () => Promise.resolve(0),
      maxBytes: Infinity,
    };
    const down = () => Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down'));
    const store = { write: down, ping: down, close: () => Promise.resolve() };
    const dir = join(temporaryDir('spool-'), 'spool');
    const maxQueueBytes = 700_000;
    const log = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter: slow, maxQueueBytes, retryMinMs: 5, retryMaxMs: 5 });
    const big = (n: number) => sampleEntry({ entityId: BigInt(n), requestId: `req-${n}`, details: { field: 'x'.repeat(8_000) } });
    for (let n = 1; n <= 500; n += 1) {
      void log.record(big(n));
      const bytes = pending.length * 8_000;
      mostPendingBytes = Math.max(mostPendingBytes, bytes);
      // The file takes one entry for every five recorded: it falls behind.
      if (n % 5 === 0) pending.shift()?.done(true);
      if (n % 50 === 0) await turn();
    }
    expect(mostPendingBytes).toBeLessThanOrEqual(maxQueueBytes);
    for (const { done } of pending.splice(0)) done(true);
    await log.close(50);
    const stats = log.stats();
    expect(stats.written).toBe(0);
    expect(stats.spilled + stats.leftInSpool).toBe(500);
    expect(stats.leftInSpool).toBeGreaterThan(0);
  });
});
