import { describe, expect, it, vi } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import {
  ActivityStoreError,
  bufferedActivityLog,
  isActivityLogUrl,
  toStoredActivity,
  type DeadLetter,
  type ReadableActivityLogStore,
  type StoredActivity,
} from '../src/index.js';
import { sampleEntry, testActivityLog } from '../src/testing/index.js';
import { expectStoredRequestIds } from './support/sql-activity-log-suite.js';

// The "add an activity-log store" recipe (docs/recipes.md), proved: a store that exists only in this
// test, written from the recipe's steps and nothing else, passes the ActivityLog contract suite
// behind the buffered log, and its two failures do what step 1 says: a refused entry is set aside
// and the rest of its batch written; an unavailable store is retried until it answers.

/**
 * Step 1: the factory, returning a ReadableActivityLogStore. A batch is one round trip, all of it or
 * none (as one statement); an entry holding a NUL is refused (a character the store cannot hold),
 * and `down()` makes every call fail as unavailable.
 */
function mapActivityLogStore() {
  const rows: StoredActivity[] = [];
  let reachable = true;
  const unreachable = () => new ActivityStoreError('unavailable', 'ECONNREFUSED', 'the map is down');
  const store = {
    writes: 0,
    write(entries: readonly ActivityEntry[]) {
      store.writes += 1;
      if (!reachable) return Promise.reject(unreachable());
      if (entries.some((entry) => entry.description.includes('\u0000')))
        return Promise.reject(new ActivityStoreError('refused', 'NUL', 'the map cannot hold a NUL character'));
      rows.push(...entries.map(toStoredActivity));
      return Promise.resolve();
    },
    ping: () => (reachable ? Promise.resolve() : Promise.reject(unreachable())),
    close: () => Promise.resolve(),
    recent: (limit: number) => Promise.resolve(rows.slice(-limit).reverse()),
    storedRequestIds: (ids: readonly string[]) => Promise.resolve(new Set(ids.filter((id) => rows.some((row) => row.request_id === id)))),
    down: () => void (reachable = false),
    up: () => void (reachable = true),
  } satisfies ReadableActivityLogStore & Record<string, unknown>;
  return store;
}

// Step 2 (its URL scheme) cannot name a store that exists only in a test; what the step asks is that
// the scheme accepted and the schemes the refusal lists are one list:
it('the activity-log URL schemes the configuration accepts are the ones its refusal names', () => {
  for (const url of ['sqlite:./data/activity.db', 'postgres://u@h/d', 'mysql://u@h/d', 'memory:'])
    expect(isActivityLogUrl(url), url).toBe(true);
  expect(isActivityLogUrl('oracle://u@h/d')).toBe(false);
});

// Step 3: the contract suite, against the store behind the buffered log, as the service runs it.
testActivityLog('a store from the recipe, buffered', () => {
  const store = mapActivityLogStore();
  const log = bufferedActivityLog(store);
  return Promise.resolve({ log, stored: async () => (await store.recent(1_000_000)).reverse(), close: () => log.close() });
});

describe('a store from the recipe', () => {
  it('tells which request ids are stored', () => expectStoredRequestIds(mapActivityLogStore()));

  it('refused: the entry is set aside with its reason, the rest of its batch written, in order', async () => {
    const store = mapActivityLogStore();
    const setAside: Array<{ entry: ActivityEntry; code: string }> = [];
    const deadLetter: DeadLetter = {
      append: (entry, refusal) => Promise.resolve(setAside.push({ entry, code: refusal.code }) > 0),
      close: () => Promise.resolve(),
      size: () => Promise.resolve(0),
      maxBytes: Infinity,
    };
    const log = bufferedActivityLog(store, { deadLetter });
    const entries = [1, 2, 3, 4, 5].map((id) =>
      sampleEntry({ entityId: BigInt(id), requestId: `req-${id}`, description: id === 3 ? 'nul \u0000 here' : `entry ${id}` }),
    );
    for (const entry of entries) void log.record(entry);
    await log.flush();
    expect((await store.recent(10)).reverse().map((row) => row.request_id)).toEqual(['req-1', 'req-2', 'req-4', 'req-5']);
    expect(setAside.map(({ entry, code }) => [entry.requestId, code])).toEqual([['req-3', 'NUL']]);
    await log.close();
  });

  it('unavailable: the write is retried until the store answers, then every entry is written once', async () => {
    const store = mapActivityLogStore();
    const log = bufferedActivityLog(store, { retryMinMs: 5, retryMaxMs: 20 });
    store.down();
    for (const id of [1, 2, 3]) void log.record(sampleEntry({ entityId: BigInt(id), requestId: `req-${id}` }));
    await vi.waitFor(() => expect(store.writes).toBeGreaterThanOrEqual(3), { timeout: 5_000, interval: 5 });
    expect(await store.recent(10)).toEqual([]);
    store.up();
    await log.flush();
    expect((await store.recent(10)).reverse().map((row) => row.request_id)).toEqual(['req-1', 'req-2', 'req-3']);
    await log.close();
  });
});
