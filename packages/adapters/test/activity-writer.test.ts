import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { ActivityStoreError, bufferedActivityLog, type DeadLetter } from '../src/index.js';
import type { Clock } from '../src/activity-log/clock.js';
import type { BoundedStore } from '../src/activity-log/buffered-activity-log.js';
import { activityQueue } from '../src/activity-log/activity-queue.js';
import { activityWriter } from '../src/activity-log/activity-writer.js';
import { sampleEntry } from '../src/testing/index.js';

/** A clock whose waits end on the next turn: each is noted, and time moves by it. */
function fakeClock() {
  const slept: number[] = [];
  let now = 0;
  const clock: Clock = {
    now: () => now,
    sleep(ms) {
      slept.push(ms);
      now += ms;
      return new Promise((resolve) => setImmediate(resolve));
    },
  };
  return { clock, slept, elapsed: () => now };
}

/** A store that fails as unavailable (`code`) every batch `fails` picks, answers its ping unless `down`, and keeps the rest. */
function failingStore(fails: (batch: readonly ActivityEntry[]) => boolean, code = 'PROTOCOL_CONNECTION_LOST', maxBatchBytes?: number) {
  const batches: ActivityEntry[][] = [];
  const state = { down: false, writes: 0 };
  const store: BoundedStore = {
    write(batch) {
      state.writes += 1;
      if (state.down || fails(batch))
        return Promise.reject(new ActivityStoreError('unavailable', code, 'Connection lost: The server closed the connection.'));
      batches.push([...batch]);
      return Promise.resolve();
    },
    ping: () => (state.down ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve()),
    close: () => Promise.resolve(),
    ...(maxBatchBytes === undefined ? {} : { maxBatchBytes: () => maxBatchBytes }),
  };
  return { store, batches, state };
}

function memoryDeadLetter() {
  const kept: Array<{ entry: ActivityEntry; code: string }> = [];
  const deadLetter: DeadLetter = {
    append(entry, refusal) {
      kept.push({ entry, code: refusal.code });
      return Promise.resolve(true);
    },
    close: () => Promise.resolve(),
    size: () => Promise.resolve(0),
    maxBytes: Infinity,
  };
  return { deadLetter, kept };
}

const ids = (list: readonly ActivityEntry[]) => list.map((entry) => entry.entityId);
const large = (entityId: bigint) => sampleEntry({ entityId, details: { field: 'observaciones', value: '😀'.repeat(450_000) } });
const isLarge = (entry: ActivityEntry) => {
  const value = entry.details?.value;
  return typeof value === 'string' && value.length > 100_000;
};

describe('the activity writer: one entry never blocks the others', () => {
  it('60 entries whose statement fails as a lost connection (a packet too large), then 20 ordinary ones: the 20 written without waiting on backoff, the 60 set aside with their code', async () => {
    const { store, batches } = failingStore((batch) => batch.some(isLarge));
    const { deadLetter, kept } = memoryDeadLetter();
    const { clock, slept } = fakeClock();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0 });
    const bad = Array.from({ length: 60 }, (_, i) => large(BigInt(i + 1)));
    const good = Array.from({ length: 20 }, (_, i) => sampleEntry({ entityId: BigInt(101 + i) }));
    for (const entry of [...bad, ...good]) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(good));
    expect(ids(kept.map((k) => k.entry))).toEqual(ids(bad));
    expect(new Set(kept.map((k) => k.code))).toEqual(new Set(['PROTOCOL_CONNECTION_LOST']));
    expect(log.stats()).toMatchObject({ written: 20, deadLettered: 60, queued: 0 });
    // The store answered all along: no backoff at all.
    expect(slept).toEqual([]);
  });

  it('a store that answers its ping but takes no entry (its table gone): nothing set aside, every entry written once it is back', async () => {
    const { store, batches, state } = failingStore(() => state.writes <= 40, 'SQLITE_ERROR');
    const { deadLetter, kept } = memoryDeadLetter();
    const { clock, slept } = fakeClock();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0, retryMinMs: 100 });
    const all = Array.from({ length: 5 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1) }));
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(kept).toEqual([]);
    expect(ids(batches.flat()).sort()).toEqual(ids(all));
    expect(log.stats()).toMatchObject({ written: 5, deadLettered: 0, queued: 0 });
    // Once every entry had stepped aside, the writer waited between tries instead of spinning.
    expect(slept.length).toBeGreaterThan(0);
  });

  it('a batch of several entries that fails twice for any reason is split: every entry written, none set aside', async () => {
    const { store, batches } = failingStore((batch) => batch.length > 4);
    const { deadLetter, kept } = memoryDeadLetter();
    const { clock } = fakeClock();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0 });
    const all = Array.from({ length: 10 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1) }));
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all));
    expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThanOrEqual(4);
    expect(kept).toEqual([]);
  });

  it('batches stay within the bytes the store takes in one statement', async () => {
    const { store, batches } = failingStore(() => false, 'UNUSED', 10_000);
    const { clock } = fakeClock();
    const log = bufferedActivityLog(store, { clock, lingerMs: 0 });
    const all = Array.from({ length: 12 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1), details: { field: 'x'.repeat(3_000) } }));
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all));
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 3, 3]);
  });

  it('a store that is down: nothing set aside, retried with growing backoff, written once it is back', async () => {
    const { store, batches, state } = failingStore(() => false, 'ECONNREFUSED');
    const { deadLetter, kept } = memoryDeadLetter();
    const { clock, slept } = fakeClock();
    state.down = true;
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0, retryMinMs: 100, retryMaxMs: 30_000 });
    const all = Array.from({ length: 5 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1) }));
    for (const entry of all) void log.record(entry);
    while (state.writes < 12) await new Promise((resolve) => setImmediate(resolve));
    state.down = false;
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all));
    expect(kept).toEqual([]);
    expect(Math.max(...slept)).toBeGreaterThanOrEqual(25_600);
  });
});

describe('the activity writer: a full disk', () => {
  it('after ENOSPC (SQLite: SQLITE_FULL) tries at most 1 s apart, sets nothing aside, and writes once space returns', async () => {
    const { store, batches, state } = failingStore(() => state.writes <= 30, 'SQLITE_FULL');
    const { deadLetter, kept } = memoryDeadLetter();
    const { clock, slept } = fakeClock();
    const log = bufferedActivityLog(store, { deadLetter, clock, lingerMs: 0, retryMinMs: 100, retryMaxMs: 30_000 });
    const all = Array.from({ length: 5 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1) }));
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all));
    expect(kept).toEqual([]);
    expect(Math.max(...slept)).toBe(1_000);
  });
});

describe('the activity writer drives its machine', () => {
  it('a scripted store (down, a lost connection, a clean half, a refused entry, a clean one): each state in turn, one backoff, the refused entry set aside', async () => {
    const script: Array<'down' | 'lost' | 'refuse' | 'ok'> = ['down', 'lost', 'ok', 'refuse', 'ok'];
    const seen: Array<{ state: string; batch: bigint[] }> = [];
    let down = false;
    const store: BoundedStore = {
      write(batch) {
        seen.push({ state: writer.state().name, batch: ids(batch) });
        const step = script.shift();
        down = step === 'down';
        if (step === 'down' || step === 'lost')
          return Promise.reject(new ActivityStoreError('unavailable', 'ECONNRESET', 'connection lost'));
        if (step === 'refuse') return Promise.reject(new ActivityStoreError('refused', '23514', 'violates check constraint'));
        return Promise.resolve();
      },
      ping: () => (down ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve()),
      close: () => Promise.resolve(),
    };
    const { clock, slept } = fakeClock();
    const queue = activityQueue(100, Infinity);
    const written: bigint[] = [];
    const refused: bigint[] = [];
    const writer = activityWriter({
      store,
      queue,
      clock,
      maxBatch: 4,
      maxBatchBytes: () => Infinity,
      lingerMs: 0,
      retryMinMs: 100,
      retryMaxMs: 1_000,
      spans: undefined,
      beforeWrite: () => undefined,
      onWritten: (batch) => written.push(...ids(batch.map((item) => item.entry))),
      onRefused: (item) => refused.push(item.entry.entityId),
      onUnwritable: () => undefined,
      onFailed: () => undefined,
    });
    for (let n = 1n; n <= 4n; n += 1n)
      queue.push({ entry: sampleEntry({ entityId: n }), bytes: 100, ticket: undefined, maybeStored: false });
    writer.wake();
    await new Promise((resolve) => setImmediate(resolve));
    await writer.idle();
    expect(seen).toEqual([
      { state: 'writing', batch: [1n, 2n, 3n, 4n] },
      { state: 'store-unreachable', batch: [1n, 2n, 3n, 4n] },
      { state: 'batch-failing', batch: [1n, 2n] },
      { state: 'isolating', batch: [3n] },
      { state: 'writing', batch: [4n] },
    ]);
    expect(slept).toEqual([100]);
    expect(written).toEqual([1n, 2n, 4n]);
    expect(refused).toEqual([3n]);
    expect(writer.state()).toEqual({ name: 'writing', batchLimit: 2 });
    writer.stop();
    expect(writer.state()).toEqual({ name: 'stopped' });
  });
});
