import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, inMemoryActivityLogStore, replayDeadLetterFile, toStoredActivity, type ActivityLogStore } from '../src/index.js';
import { deadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

const refusal = { code: '22001', reason: 'value too long' };
const entry = (id: number) => sampleEntry({ entityId: BigInt(id), requestId: `req-${id}` });

function fileWith(lines: string[]): string {
  const file = join(temporaryDir('replay-'), 'dead.jsonl');
  writeFileSync(file, lines.join(''));
  return file;
}

/** The in-memory store, refusing the entries `refuses` picks and unavailable from the `downAt`-th write on. */
function store(options: { refuses?: (e: ActivityEntry) => boolean; downAt?: number; onWrite?: () => void } = {}) {
  const inner = inMemoryActivityLogStore();
  let writes = 0;
  const wrapped: ActivityLogStore = {
    async write(entries) {
      writes += 1;
      options.onWrite?.();
      if (options.downAt !== undefined && writes >= options.downAt) throw new ActivityStoreError('unavailable', 'ECONNREFUSED', 'connect ECONNREFUSED');
      if (entries.some(options.refuses ?? (() => false))) throw new ActivityStoreError('refused', '22001', 'still too long');
      await inner.write(entries);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { store: wrapped, rows: async () => (await inner.recent(1000)).reverse() };
}

describe('replaying the dead-letter file', () => {
  it('writes every entry, empties the file, and a second run writes nothing again', async () => {
    const file = fileWith([1, 2, 3].map((id) => deadLetterLine(entry(id), refusal, new Date())));
    const target = store();
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ written: 3, stillRefused: 0, unreadable: 0, notTried: 0 });
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ written: 0, stillRefused: 0, unreadable: 0, notTried: 0 });
    expect(await target.rows()).toEqual([1, 2, 3].map((id) => toStoredActivity(entry(id))));
    expect(existsSync(`${file}.replay-lock`)).toBe(false);
  });

  it('keeps the entries still refused (with the new reason) and the lines it cannot read, untouched', async () => {
    const file = fileWith([deadLetterLine(entry(1), refusal, new Date()), 'not json\n', deadLetterLine(entry(2), refusal, new Date()), '{"entry":{"entityId":1.5}}\n']);
    const target = store({ refuses: (e) => e.entityId === 2n });
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ written: 1, stillRefused: 1, unreadable: 2, notTried: 0 });
    const kept = readFileSync(file, 'utf8').split('\n');
    expect(kept[0]).toBe('not json');
    expect(JSON.parse(kept[1] ?? '')).toMatchObject({ code: '22001', reason: 'still too long', entry: { entityId: '2' } });
    expect(kept.slice(2)).toEqual(['{"entry":{"entityId":1.5}}', '']);
  });

  it('stops at a store that cannot be reached and keeps everything not written', async () => {
    const lines = [1, 2, 3, 4].map((id) => deadLetterLine(entry(id), refusal, new Date()));
    const file = fileWith(lines);
    const target = store({ downAt: 2 });
    const result = await replayDeadLetterFile(file, target.store);
    expect(result).toEqual({ written: 1, stillRefused: 0, unreadable: 0, notTried: 3, stoppedBy: 'the store is unavailable: connect ECONNREFUSED' });
    expect(readFileSync(file, 'utf8')).toBe(lines.slice(1).join(''));
  });

  it('carries over lines a running service appends during the replay', async () => {
    const file = fileWith([deadLetterLine(entry(1), refusal, new Date())]);
    const late = deadLetterLine(entry(9), refusal, new Date());
    const target = store({ onWrite: () => appendFileSync(file, late) });
    expect(await replayDeadLetterFile(file, target.store)).toMatchObject({ written: 1 });
    expect(readFileSync(file, 'utf8')).toBe(late);
  });

  it('refuses to run while another replay of the same file holds the lock', async () => {
    const line = deadLetterLine(entry(1), refusal, new Date());
    const file = fileWith([line]);
    writeFileSync(`${file}.replay-lock`, '');
    const target = store();
    await expect(replayDeadLetterFile(file, target.store)).rejects.toThrow(/another replay is running/);
    expect(readFileSync(file, 'utf8')).toBe(line);
    expect(await target.rows()).toEqual([]);
  });

  it('a missing file is nothing to replay', async () => {
    const file = join(temporaryDir('replay-'), 'absent.jsonl');
    expect(await replayDeadLetterFile(file, store().store)).toEqual({ written: 0, stillRefused: 0, unreadable: 0, notTried: 0 });
    expect(existsSync(file)).toBe(false);
  });

  it('stops between entries when interrupted', async () => {
    const file = fileWith([1, 2, 3].map((id) => deadLetterLine(entry(id), refusal, new Date())));
    const interrupted = new AbortController();
    const target = store({ onWrite: () => interrupted.abort() });
    expect(await replayDeadLetterFile(file, target.store, { signal: interrupted.signal })).toEqual({ written: 1, stillRefused: 0, unreadable: 0, notTried: 2, stoppedBy: 'interrupted' });
    expect(await target.rows()).toHaveLength(1);
  });
});
