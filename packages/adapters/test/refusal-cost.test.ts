import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, bufferedActivityLog, type DeadLetter } from '../src/index.js';
import type { WritableStore } from '../src/activity-log/activity-writer.js';
import type { Clock } from '../src/activity-log/clock.js';
import { sampleEntry } from '../src/testing/index.js';

/** Waits end on the next turn: the writer never waits on real time. */
const clock: Clock = { now: () => 0, sleep: () => turn().then(() => undefined) };

/**
 * A store that answers each write a turn later (its latency), refuses a whole batch holding an entry
 * `refuses` picks (as a database does), keeps the rest, and counts its writes.
 */
function refusingStore(refuses: (entry: ActivityEntry) => boolean, extra: Partial<WritableStore> = {}) {
  const rows: ActivityEntry[] = [];
  const state = { writes: 0 };
  const store: WritableStore = {
    async write(batch) {
      state.writes += 1;
      await turn();
      if (batch.some(refuses)) throw new ActivityStoreError('refused', '23514', 'violates check constraint');
      rows.push(...batch);
    },
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
    ...extra,
  };
  return { store, rows, state };
}

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

const entries = (n: number) => Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(i + 1), requestId: `req-${i + 1}` }));
const refusedOneInFour = (entry: ActivityEntry) => entry.entityId % 4n === 0n;
/** Writes that isolating the first refused entry of a full batch (500) may take: one per halving, and the batch itself. */
const FIRST_ISOLATION = Math.ceil(Math.log2(500)) + 1;

describe('entries the store refuses cost O(1) writes after the first of a stretch', () => {
  it('a store that refuses every entry (a CHECK after a bad migration), 2 000 waiting: one write per refused entry after the first', async () => {
    const { store, rows, state } = refusingStore(() => true);
    const { deadLetter, kept } = memoryDeadLetter();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0 });
    for (const entry of entries(2_000)) void log.record(entry);
    await log.flush();
    expect(rows).toEqual([]);
    expect(kept).toHaveLength(2_000);
    // Set aside at one write each: at the rate the store answers writes, whatever the batch size.
    expect(state.writes).toBeLessThanOrEqual(FIRST_ISOLATION + 1_999);
  });

  it('a store that refuses every entry, 500 waiting and more arriving, one for every two writes: the backlog drains, and none waits at the end', async () => {
    const all = entries(2_500);
    let arrived = 0;
    let writes = 0;
    const { store, state } = refusingStore(() => true);
    const arriving: WritableStore = {
      ...store,
      write(batch) {
        writes += 1;
        if (writes % 2 === 0 && arrived < all.length) void log.record(all[arrived++]!);
        return store.write(batch);
      },
    };
    const { deadLetter, kept } = memoryDeadLetter();
    const log = bufferedActivityLog(arriving, { deadLetter, clock, lingerMs: 0 });
    while (arrived < 500) void log.record(all[arrived++]!);
    while (arrived < all.length) {
      // The writer caught up and sits idle: the next entry arrives anyway.
      if (log.stats().queued === 0) void log.record(all[arrived++]!);
      await turn();
    }
    // The load ends: what still waits is what arrived during the last few writes.
    expect(log.stats().queued).toBeLessThanOrEqual(2);
    const writesAtEnd = state.writes;
    await log.flush();
    expect(kept).toHaveLength(2_500);
    expect(state.writes - writesAtEnd).toBeLessThanOrEqual(2);
  });

  it('one refused entry in four among 2 000 waiting: every ordinary entry written in at most 1.5 writes per entry', async () => {
    const { store, rows, state } = refusingStore(refusedOneInFour);
    const { deadLetter, kept } = memoryDeadLetter();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0 });
    const all = entries(2_000);
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(rows.map((entry) => entry.entityId)).toEqual(all.filter((entry) => !refusedOneInFour(entry)).map((entry) => entry.entityId));
    expect(kept).toHaveLength(500);
    expect(state.writes).toBeLessThanOrEqual(1.5 * 2_000);
  });

  it('one refused entry in four, 500 waiting and more arriving, one for every two writes: every ordinary entry written within a few writes of the load ending', async () => {
    const all = entries(2_500);
    let arrived = 0;
    const { store, rows, state } = refusingStore(refusedOneInFour);
    const arriving: WritableStore = {
      ...store,
      write(batch) {
        if (state.writes % 2 === 1 && arrived < all.length) void log.record(all[arrived++]!);
        return store.write(batch);
      },
    };
    const { deadLetter, kept } = memoryDeadLetter();
    const log = bufferedActivityLog(arriving, { deadLetter, clock, lingerMs: 0 });
    while (arrived < 500) void log.record(all[arrived++]!);
    while (arrived < all.length) {
      if (log.stats().queued === 0) void log.record(all[arrived++]!);
      await turn();
    }
    const writesAtEnd = state.writes;
    await log.flush();
    expect(state.writes - writesAtEnd).toBeLessThanOrEqual(4);
    expect(rows).toHaveLength(1_875);
    expect(kept).toHaveLength(625);
  });

  it('refusals that stop: batches grow back by doubling, to the full batch within a few clean writes', async () => {
    const { store, state } = refusingStore((entry) => entry.entityId <= 50n);
    const batches: number[] = [];
    const sized: WritableStore = {
      ...store,
      write(batch) {
        batches.push(batch.length);
        return store.write(batch);
      },
    };
    const log = bufferedActivityLog(sized, { deadLetter: memoryDeadLetter().deadLetter, clock, lingerMs: 0, maxBatch: 64 });
    for (const entry of entries(1_050)) void log.record(entry);
    await log.flush();
    expect(state.writes).toBe(batches.length);
    // After the 50 refused (one write each), clean batches of 1, 2, 4 … 64, then full ones.
    const clean = batches.slice(batches.lastIndexOf(1));
    expect(clean.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
  });
});

describe("entries the store's column limits refuse (refusalOf): set aside before any write", () => {
  it('each entry is checked in memory before it is batched; those that do not fit never reach a write, the others are written in full batches', async () => {
    const tooLong = (entry: ActivityEntry) => entry.entityId % 4n === 0n;
    const checked: bigint[] = [];
    const { store, rows, state } = refusingStore(tooLong, {
      refusalOf(entry) {
        checked.push(entry.entityId);
        return tooLong(entry) ? new ActivityStoreError('refused', 'TOO_LONG', 'user_agent: 300 characters for VARCHAR(255)') : undefined;
      },
    });
    const { deadLetter, kept } = memoryDeadLetter();
    const problems: unknown[] = [];
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0, onProblem: (problem) => problems.push(problem) });
    const all = entries(1_000);
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(rows).toHaveLength(750);
    expect(kept.map((entry) => entry.entityId)).toEqual(all.filter(tooLong).map((entry) => entry.entityId));
    expect(new Set(checked).size).toBe(1_000);
    // 750 entries in batches of 500: no write ever carried a refused one.
    expect(state.writes).toBe(2);
    expect(log.stats()).toMatchObject({ written: 750, deadLettered: 250 });
    expect(problems).toHaveLength(250);
    expect(problems[0]).toMatchObject({ kind: 'refused', error: { code: 'TOO_LONG' } });
  });
});
