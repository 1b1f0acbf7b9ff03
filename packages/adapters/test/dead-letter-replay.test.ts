import { appendFileSync, closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, inMemoryActivityLogStore, replayDeadLetterFile, toStoredActivity, type ReplayStore } from '../src/index.js';
import { deadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { tryLock } from '../src/fs/flock.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

const refusal = { code: '22001', reason: 'value too long' };
const none = { written: 0, alreadyStored: 0, stillRefused: 0, failedChecks: 0, unreadable: 0, oversized: 0, notTried: 0 };
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
  const wrapped: ReplayStore = {
    async write(entries) {
      writes += 1;
      options.onWrite?.();
      if (options.downAt !== undefined && writes >= options.downAt)
        throw new ActivityStoreError('unavailable', 'ECONNREFUSED', 'connect ECONNREFUSED');
      if (entries.some(options.refuses ?? (() => false))) throw new ActivityStoreError('refused', '22001', 'still too long');
      await inner.write(entries);
    },
    storedRequestIds: (ids) => inner.storedRequestIds(ids),
  };
  return { store: wrapped, rows: async () => (await inner.recent(1000)).reverse() };
}

describe('replaying the dead-letter file', () => {
  it('writes every entry, empties the file, and a second run writes nothing again', async () => {
    const file = fileWith([1, 2, 3].map((id) => deadLetterLine(entry(id), refusal, new Date())));
    const target = store();
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 3 });
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(await replayDeadLetterFile(file, target.store)).toEqual(none);
    expect(await target.rows()).toEqual([1, 2, 3].map((id) => toStoredActivity(entry(id))));
    expect(existsSync(`${file}.replay-lock`)).toBe(false);
  });

  it('keeps the entries still refused (with the new reason) and the lines it cannot read, untouched', async () => {
    const file = fileWith([
      deadLetterLine(entry(1), refusal, new Date()),
      'not json\n',
      deadLetterLine(entry(2), refusal, new Date()),
      '{"entry":{"entityId":1.5}}\n',
    ]);
    const target = store({ refuses: (e) => e.entityId === 2n });
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 1, stillRefused: 1, unreadable: 2 });
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
    expect(result).toEqual({ ...none, written: 1, notTried: 3, stoppedBy: 'the store is unavailable: connect ECONNREFUSED' });
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
    const held = openSync(`${file}.replay-lock`, 'a');
    expect(tryLock(held, 'exclusive')).toBe(true);
    const target = store();
    await expect(replayDeadLetterFile(file, target.store)).rejects.toThrow(/another replay of .* is running/);
    expect(readFileSync(file, 'utf8')).toBe(line);
    expect(await target.rows()).toEqual([]);
    // A replay that died releases its lock with its descriptor: no stale lock to remove by hand.
    closeSync(held);
    expect(await replayDeadLetterFile(file, target.store)).toMatchObject({ written: 1 });
  });

  it('a missing file is nothing to replay', async () => {
    const file = join(temporaryDir('replay-'), 'absent.jsonl');
    expect(await replayDeadLetterFile(file, store().store)).toEqual(none);
    expect(existsSync(file)).toBe(false);
  });

  it('stops between entries when interrupted', async () => {
    const file = fileWith([1, 2, 3].map((id) => deadLetterLine(entry(id), refusal, new Date())));
    const interrupted = new AbortController();
    const target = store({ onWrite: () => interrupted.abort() });
    expect(await replayDeadLetterFile(file, target.store, { signal: interrupted.signal })).toEqual({
      ...none,
      written: 1,
      notTried: 2,
      stoppedBy: 'interrupted',
    });
    expect(await target.rows()).toHaveLength(1);
  });
});

describe("the replay applies the service's own checks", () => {
  const record = (overrides: Record<string, unknown>) => {
    const line = JSON.parse(deadLetterLine(entry(1), refusal, new Date())) as { entry: Record<string, unknown> };
    return `${JSON.stringify({ ...line, entry: { ...line.entry, ...overrides } })}\n`;
  };

  it('writes no entry with a forged client IP, a request id off the pattern or missing, or an entity id past 64 bits; keeps those lines as they are', async () => {
    const forged = [
      record({ clientIp: '1.2.3.4, evil', requestId: 'req-a' }),
      record({ requestId: 'r'.repeat(5000) }),
      record({ requestId: 'has space' }),
      record({ requestId: null }),
      record({ entityId: '99999999999999999999', requestId: 'req-b' }),
      record({ entityId: '-9223372036854775809', requestId: 'req-c' }),
    ];
    const fine = [
      record({ requestId: 'req-ok', clientIp: null, entityId: '9223372036854775807' }),
      record({ requestId: 'req-v6', clientIp: '::1' }),
    ];
    const file = fileWith([...forged, ...fine]);
    const target = store();
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 2, failedChecks: 6 });
    expect((await target.rows()).map((row) => [row.request_id, row.entity_id, row.client_ip])).toEqual([
      ['req-ok', '9223372036854775807', null],
      ['req-v6', '1', '::1'],
    ]);
    expect(readFileSync(file, 'utf8')).toBe(forged.join(''));
  });

  it('never reads a line past 64 KiB whole: counted, dropped; the lines around it are replayed', async () => {
    const before = deadLetterLine(entry(1), refusal, new Date());
    const after = deadLetterLine(entry(2), refusal, new Date());
    const long = `${'x'.repeat(2 * 1024 * 1024)}\n`;
    const atBound = `{"pad":"${'y'.repeat(64 * 1024 - 11)}"}\n`; // exactly 64 KiB with its newline: read, not an entry
    const file = fileWith([before, long, atBound, after]);
    const target = store();
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 2, oversized: 1, unreadable: 1 });
    expect(Buffer.byteLength(atBound)).toBe(64 * 1024);
    expect(readFileSync(file, 'utf8')).toBe(atBound);
  });
});

describe('the replay skips what the store already holds, by request id', () => {
  it('an entry already stored (a spool forwarded it) and a line kept twice are written once', async () => {
    const target = store();
    await target.store.write([entry(2)]);
    const file = fileWith([1, 2, 3, 1].map((id) => deadLetterLine(entry(id), refusal, new Date())));
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 2, alreadyStored: 2 });
    expect((await target.rows()).map((row) => row.request_id)).toEqual(['req-2', 'req-1', 'req-3']);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('a replay killed midway is taken up by the next: its aside file first, what it had written not again', async () => {
    const file = fileWith([deadLetterLine(entry(4), refusal, new Date())]);
    writeFileSync(`${file}.replaying`, [1, 2, 3].map((id) => deadLetterLine(entry(id), refusal, new Date())).join(''));
    writeFileSync(`${file}.kept`, 'half-written by the killed replay\n');
    const target = store();
    await target.store.write([entry(1)]);
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 2, alreadyStored: 1 });
    expect((await target.rows()).map((row) => row.request_id)).toEqual(['req-1', 'req-2', 'req-3']);
    // The live file was not part of this run: the next one writes it.
    expect(await replayDeadLetterFile(file, target.store)).toEqual({ ...none, written: 1 });
    expect(readFileSync(file, 'utf8')).toBe('');
    expect([existsSync(`${file}.replaying`), existsSync(`${file}.kept`), existsSync(`${file}.replay-lock`)]).toEqual([false, false, false]);
  });
});
