import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, bufferedActivityLog, deadLetterFile, type ActivityLogProblem, type DeadLetter } from '../src/index.js';
import { replayDeadLetterFile } from '../src/activity-log/replay-dead-letter.js';
import type { ReplayStore } from '../src/activity-log/replay-entries.js';
import { openSpool } from '../src/activity-log/activity-spool.js';
import type { WritableStore } from '../src/activity-log/activity-writer.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();
const entries = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(from + i), requestId: `req-${from + i}` }));
const ids = (list: readonly ActivityEntry[]) => list.map((entry) => entry.entityId);
const spoolDir = () => join(temporaryDir('spool-'), 'spool');
const spooledLines = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.spool'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter((line) => line.startsWith('{"e":'));

/** Records each entry as a channel does: its answer waits until the spool has it. */
const recordAll = async (log: { record(entry: ActivityEntry): void | Promise<void> }, list: readonly ActivityEntry[]) => {
  for (const entry of list) await log.record(entry);
};

/** A store keyed by request id, down while `down` is set. */
function storeByRequestId() {
  const rows: ActivityEntry[] = [];
  const state = { down: false, closed: false };
  const store: WritableStore = {
    write(batch) {
      if (state.down) return Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down'));
      rows.push(...batch);
      return Promise.resolve();
    },
    storedRequestIds(requestIds) {
      if (state.down) return Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down'));
      const wanted = new Set(requestIds);
      return Promise.resolve(new Set(rows.flatMap((row) => (row.requestId && wanted.has(row.requestId) ? [row.requestId] : []))));
    },
    ping: () => (state.down ? Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down')) : Promise.resolve()),
    close() {
      state.closed = true;
      return Promise.resolve();
    },
  };
  return { store, rows, state };
}

/** The part of the store a replay uses. */
const replayable = (store: WritableStore): ReplayStore => ({
  write: (batch) => store.write(batch),
  storedRequestIds: (requestIds) => store.storedRequestIds!(requestIds),
});

function memoryDeadLetter() {
  const kept: ActivityEntry[] = [];
  const deadLetter: DeadLetter = {
    append(entry) {
      kept.push(entry);
      return Promise.resolve(true);
    },
    close: () => Promise.resolve(),
    size: () => Promise.resolve(0),
    maxBytes: Infinity,
  };
  return { deadLetter, kept };
}

describe('the activity log over a spool', () => {
  it('has the entry on disk when the promise record returns settles, before any write to the store', async () => {
    const dir = spoolDir();
    const { store, rows } = storeByRequestId();
    const log = bufferedActivityLog(store, { spool: openSpool(dir) });
    const kept = log.record(entries(1)[0]!);
    expect(spooledLines(dir)).toHaveLength(0);
    await kept;
    expect(spooledLines(dir)).toHaveLength(1);
    expect(rows).toHaveLength(0);
    expect(log.stats()).toMatchObject({ spooled: 1, spoolSkipped: 0 });
    await log.close(1_000);
  });

  it('leaves nothing in the spool once the store holds every entry', async () => {
    const dir = spoolDir();
    const { store, rows } = storeByRequestId();
    const log = bufferedActivityLog(store, { spool: openSpool(dir) });
    await recordAll(log, entries(50));
    await log.close(1_000);
    expect(ids(rows)).toEqual(ids(entries(50)));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a stop with the store down keeps the entries in the spool (not the dead-letter file); the next start forwards them once', async () => {
    const dir = spoolDir();
    const { store, rows, state } = storeByRequestId();
    const { deadLetter, kept } = memoryDeadLetter();
    const problems: ActivityLogProblem[] = [];
    state.down = true;
    const first = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter, retryMinMs: 5, onProblem: (p) => problems.push(p) });
    await recordAll(first, entries(300));
    await first.close(50);
    expect(kept).toEqual([]);
    expect(first.stats()).toMatchObject({ leftInSpool: 300, written: 0 });
    expect(problems).toContainEqual({ kind: 'unwritten-at-close', setAside: 0, lost: 0, leftInSpool: 300 });

    state.down = false;
    const second = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter });
    await second.close(5_000);
    expect(ids(rows)).toEqual(ids(entries(300)));
    expect(second.stats()).toMatchObject({ adopted: 300, written: 300, leftInSpool: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('entries taken over past half the queue bound wait in the spool and join the queue as it has room: all written, none set aside, new ones included', async () => {
    const dir = spoolDir();
    const { store, rows, state } = storeByRequestId();
    const { deadLetter, kept } = memoryDeadLetter();
    state.down = true;
    const first = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter, retryMinMs: 5 });
    await recordAll(first, entries(50));
    await first.close(20);
    expect(first.stats()).toMatchObject({ leftInSpool: 50 });

    // A stop before the store comes back: what waited in the spool is still there.
    const second = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter, maxQueue: 10, retryMinMs: 5 });
    await second.close(20);
    expect(second.stats()).toMatchObject({ adopted: 50, written: 0, leftInSpool: 50 });

    // Back up: taken-over entries fill at most half the queue, so new entries meanwhile are queued, not set aside.
    state.down = false;
    const third = bufferedActivityLog(store, { spool: openSpool(dir), deadLetter, maxQueue: 10, maxBatch: 4 });
    expect(third.stats().queued).toBe(50);
    await recordAll(third, entries(5, 51));
    await third.close(5_000);
    expect(kept).toEqual([]);
    expect(ids(rows).sort((a, b) => Number(a - b))).toEqual(ids(entries(55)));
    expect(third.stats()).toMatchObject({ adopted: 50, written: 55, spilled: 0, queued: 0, leftInSpool: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  /** As a killed process leaves it: 10 entries spooled, never acknowledged, the first 4 already in the store. */
  const killedAfterFourStored = () => {
    const dir = spoolDir();
    const { store, rows } = storeByRequestId();
    const killed = openSpool(dir);
    for (const entry of entries(10)) killed.append(entry);
    killed.close();
    rows.push(...entries(4));
    return { dir, store, rows };
  };

  it('a process killed after the store took entries it had not yet acknowledged: the next start writes only the ones the store lacks', async () => {
    const { dir, store, rows } = killedAfterFourStored();
    const log = bufferedActivityLog(store, { spool: openSpool(dir) });
    await log.close(1_000);
    expect(ids(rows)).toEqual(ids(entries(10)));
    expect(log.stats()).toMatchObject({ adopted: 10, adoptedFound: 4, written: 6 });
  });

  it('a restart whose first write fails after the store was asked: the entries found then are still not written again', async () => {
    const { dir, store, rows } = killedAfterFourStored();
    // The store answers the lookup, then drops the write (unavailable): the batch is tried again.
    let dropped = false;
    const flaky: WritableStore = {
      ...store,
      write(batch) {
        if (dropped) return store.write(batch);
        dropped = true;
        return Promise.reject(new ActivityStoreError('unavailable', 'ECONNRESET', 'connection lost'));
      },
    };

    const log = bufferedActivityLog(flaky, { spool: openSpool(dir), retryMinMs: 1 });
    await log.close(1_000);
    expect(ids(rows)).toEqual(ids(entries(10)));
    expect(log.stats()).toMatchObject({ adopted: 10, adoptedFound: 4, written: 6 });
  });

  it('a channel that ends (the CLI) sets what it could not write aside in the dead-letter file, and leaves nothing in the spool', async () => {
    const dir = spoolDir();
    const { store, state } = storeByRequestId();
    const { deadLetter, kept } = memoryDeadLetter();
    state.down = true;
    const log = bufferedActivityLog(store, {
      spool: openSpool(dir, { adopt: false }),
      deadLetter,
      retryMinMs: 5,
      unwrittenAtClose: 'dead-letter',
    });
    await recordAll(log, entries(5));
    await log.close(50);
    expect(ids(kept)).toEqual(ids(entries(5)));
    expect(log.stats()).toMatchObject({ spilled: 5, leftInSpool: 0 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('past the spool bound, entries are held in memory only, counted, and said once a minute', async () => {
    const dir = spoolDir();
    const { store, rows } = storeByRequestId();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { spool: openSpool(dir, { maxBytes: 2_000 }), onProblem: (p) => problems.push(p) });
    await recordAll(log, entries(20));
    expect(log.stats().spoolSkipped).toBeGreaterThan(0);
    expect(problems.filter((p) => p.kind === 'spool-skipped')).toEqual([
      { kind: 'spool-skipped', reason: 'full', error: undefined, skipped: 1 },
    ]);
    await log.close(1_000);
    expect(ids(rows)).toEqual(ids(entries(20)));
    expect(log.stats().spooled + log.stats().spoolSkipped).toBe(20);
  });

  it('a power loss zeroing a region across the newline between an entry and an acknowledgement: the next start leaves each entry once in the store', async () => {
    const dir = spoolDir();
    const { store, rows } = storeByRequestId();
    const [one, two, three, four, five] = entries(5);
    const killed = openSpool(dir, { syncIntervalMs: 0 });
    const turn = async (list: readonly ActivityEntry[]) => {
      const tickets = list.map((entry) => {
        const appended = killed.append(entry);
        if (!appended.ok) throw new Error('not spooled');
        return appended.ticket;
      });
      await new Promise((resolve) => setImmediate(resolve));
      return tickets;
    };
    // Stored: 1, 2 and 3; acknowledged: 1 (right after 2's line) and 3; 2's acknowledgement was never written.
    const [first] = await turn([one!, two!]);
    rows.push(one!, two!);
    killed.acknowledge([first!]);
    const [third] = await turn([three!, four!, five!]);
    rows.push(three!);
    killed.acknowledge([third!]);
    killed.close();
    const [name] = readdirSync(dir);
    const path = join(dir, name!);
    const content = readFileSync(path, 'latin1');
    // The end of 2's line, its newline and the start of the acknowledgement after it, zeroed.
    const from = content.indexOf(`"userAgent":"vitest"}}\n{`, content.indexOf('"requestId":"req-2"'));
    const to = from + `"userAgent":"vitest"}}\n{`.length;
    expect(from).toBeGreaterThan(0);
    writeFileSync(
      path,
      Buffer.concat([Buffer.from(content.slice(0, from), 'latin1'), Buffer.alloc(to - from), Buffer.from(content.slice(to), 'latin1')]),
    );

    const log = bufferedActivityLog(store, { spool: openSpool(dir) });
    await log.close(1_000);
    expect(ids(rows).sort((a, b) => Number(a - b))).toEqual(ids(entries(5)));
  });

  describe('an entry set aside but not acknowledged when the process died: written once by the next start and a replay', () => {
    /** As a process killed between the dead-letter appends and their acknowledgements leaves it: 4 entries spooled, the first 2 set aside. */
    const killedAfterSetAside = async () => {
      const dir = spoolDir();
      const deadLetterPath = join(dir, '..', 'dead.jsonl');
      const killed = openSpool(dir);
      for (const entry of entries(4)) killed.append(entry);
      await new Promise((resolve) => setImmediate(resolve));
      const deadLetter = deadLetterFile(deadLetterPath);
      for (const entry of entries(2)) await deadLetter.append(entry, { code: 'QUEUE_FULL', reason: 'the queue was full' });
      killed.close();
      return { dir, deadLetterPath, deadLetter };
    };
    const start = async (dir: string, deadLetterPath: string, deadLetter: DeadLetter, store: WritableStore) => {
      const log = bufferedActivityLog(store, { spool: openSpool(dir, { deadLetterFile: deadLetterPath }), deadLetter });
      await log.close(5_000);
    };

    it('the replay runs while the start is between its lookup in the store and its write', async () => {
      const { dir, deadLetterPath, deadLetter } = await killedAfterSetAside();
      const { store, rows } = storeByRequestId();
      const replayInBetween: WritableStore = {
        ...store,
        async storedRequestIds(requestIds) {
          const held = await store.storedRequestIds!(requestIds);
          await replayDeadLetterFile(deadLetterPath, replayable(store));
          return held;
        },
      };
      await start(dir, deadLetterPath, deadLetter, replayInBetween);
      await replayDeadLetterFile(deadLetterPath, replayable(store));
      expect(ids(rows).sort((a, b) => Number(a - b))).toEqual(ids(entries(4)));
    });

    it('the start runs while the replay is between its lookup in the store and its write', async () => {
      const { dir, deadLetterPath, deadLetter } = await killedAfterSetAside();
      const { store, rows } = storeByRequestId();
      const startInBetween: WritableStore = {
        ...store,
        async storedRequestIds(requestIds) {
          const held = await store.storedRequestIds!(requestIds);
          await start(dir, deadLetterPath, deadLetter, store);
          return held;
        },
      };
      await replayDeadLetterFile(deadLetterPath, replayable(startInBetween));
      expect(ids(rows).sort((a, b) => Number(a - b))).toEqual(ids(entries(4)));
      expect(readdirSync(dir)).toEqual([]);
    });
  });
});
