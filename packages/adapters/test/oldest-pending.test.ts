import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ActivityStoreError, bufferedActivityLog } from '../src/index.js';
import { activityQueue } from '../src/activity-log/activity-queue.js';
import { openSpool } from '../src/activity-log/activity-spool.js';
import type { WritableStore } from '../src/activity-log/activity-writer.js';
import type { Clock } from '../src/activity-log/clock.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();
const START = Date.parse('2026-03-04T05:00:00.000Z');

/** A clock the test moves; the writer's waits end on the next turn without moving it. */
function testClock() {
  const state = { now: START };
  const clock: Clock = {
    now: () => state.now,
    sleep: () => new Promise((resolve) => setImmediate(resolve)),
  };
  return { clock, state };
}

/** A store down while `down` is set; `tried(n)` resolves once n writes were attempted (no fixed waits). */
function switchableStore() {
  const state = { down: true, writes: 0 };
  const waiters: Array<{ writes: number; resolve: () => void }> = [];
  const unavailable = () => new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down');
  const store: WritableStore = {
    write() {
      state.writes += 1;
      for (const waiter of waiters.filter((w) => w.writes <= state.writes)) waiter.resolve();
      return state.down ? Promise.reject(unavailable()) : Promise.resolve();
    },
    storedRequestIds: () => (state.down ? Promise.reject(unavailable()) : Promise.resolve(new Set<string>())),
    ping: () => (state.down ? Promise.reject(unavailable()) : Promise.resolve()),
    close: () => Promise.resolve(),
  };
  const tried = (writes: number) =>
    new Promise<void>((resolve) => (state.writes >= writes ? resolve() : waiters.push({ writes, resolve })));
  return { store, state, tried };
}

const entryAt = (createdAt: number, n: number) =>
  sampleEntry({ createdAt: new Date(createdAt), entityId: BigInt(n), requestId: `req-${n}` });

describe('the age of the oldest entry not yet in the store (activity_log_oldest_pending_seconds)', () => {
  it('is 0 with nothing waiting, ages with the clock while entries wait (a batch retried included), and is 0 again once written', async () => {
    const { clock, state: time } = testClock();
    const { store, state, tried } = switchableStore();
    const log = bufferedActivityLog(store, { clock, lingerMs: 0, retryMinMs: 1, retryMaxMs: 1 });
    expect(log.oldestPendingMs()).toBe(0);

    void log.record(entryAt(START, 1));
    time.now = START + 5_000;
    expect(log.oldestPendingMs()).toBe(5_000);
    // The entry is in a batch the writer has tried and keeps retrying: still waiting.
    await tried(3);
    time.now = START + 12_000;
    void log.record(entryAt(START + 12_000, 2));
    expect(log.oldestPendingMs()).toBe(12_000);

    state.down = false;
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 2, queued: 0 });
    expect(log.oldestPendingMs()).toBe(0);
    await log.close(1_000);
  });

  it('counts entries taken over from the spool at start, those still waiting there included, by their own created_at', async () => {
    const dir = join(temporaryDir('oldest-pending-'), 'spool');
    const { clock } = testClock();
    const { store, state } = switchableStore();
    // A process that stopped with the store down, an hour ago, leaving 6 entries in its segment.
    const first = bufferedActivityLog(store, { spool: openSpool(dir), clock, retryMinMs: 1, retryMaxMs: 1 });
    for (let n = 1; n <= 6; n += 1) await first.record(entryAt(START - 3_600_000 + n * 1_000, n));
    await first.close(20);
    expect(first.stats().leftInSpool).toBe(6);

    // Half a queue of 4: two taken-over entries join the queue, four wait in the spool.
    const second = bufferedActivityLog(store, { spool: openSpool(dir), clock, maxQueue: 4, retryMinMs: 1, retryMaxMs: 1 });
    expect(second.stats()).toMatchObject({ adopted: 6, queued: 6 });
    await second.record(entryAt(START, 7));
    expect(second.oldestPendingMs()).toBe(3_600_000 - 1_000);

    state.down = false;
    await second.flush();
    expect(second.stats()).toMatchObject({ written: 7, queued: 0 });
    expect(second.oldestPendingMs()).toBe(0);
    await second.close(1_000);
  });

  it('knows the oldest of the entries still waiting in the spool when segments of several processes overlap in time', async () => {
    const dir = join(temporaryDir('oldest-pending-'), 'spool');
    const { clock } = testClock();
    const { store, state } = switchableStore();
    // Two processes at once: the first segment (the older name) holds the newer entries, the second the oldest one.
    const a = bufferedActivityLog(store, { spool: openSpool(dir), clock });
    await a.record(entryAt(START - 60_000, 1));
    const b = bufferedActivityLog(store, { spool: openSpool(dir, { adopt: false }), clock });
    await b.record(entryAt(START - 600_000, 2));
    await a.record(entryAt(START - 50_000, 3));
    await a.close(20);
    await b.close(20);

    // Only one taken-over entry joins the queue (half of 2): the oldest waits in the spool behind it.
    const next = bufferedActivityLog(store, { spool: openSpool(dir), clock, maxQueue: 2, retryMinMs: 1, retryMaxMs: 1 });
    expect(next.stats()).toMatchObject({ adopted: 3, queued: 3 });
    expect(next.oldestPendingMs()).toBe(600_000);
    state.down = false;
    await next.close(1_000);
    expect(next.stats()).toMatchObject({ written: 3, leftInSpool: 0 });
  });

  it('finds the oldest queued entry when taken-over entries joined the queue behind newer ones', () => {
    const queue = activityQueue(100, 1_000_000);
    const item = (createdAt: number, n: number, maybeStored: boolean) => ({
      entry: entryAt(createdAt, n),
      bytes: 100,
      ticket: undefined,
      maybeStored,
    });
    const recorded = item(START, 1, false);
    const takenOver = item(START - 300_000, 2, true);
    queue.push(recorded);
    expect(queue.oldestCreatedAt()).toBe(START);
    queue.push(takenOver);
    queue.push(item(START + 1_000, 3, false));
    expect(queue.oldestCreatedAt()).toBe(START - 300_000);
    queue.remove([takenOver]);
    expect(queue.oldestCreatedAt()).toBe(START);
    queue.remove([recorded]);
    expect(queue.oldestCreatedAt()).toBe(START + 1_000);
    queue.takeAll();
    expect(queue.oldestCreatedAt()).toBeUndefined();
  });
});
