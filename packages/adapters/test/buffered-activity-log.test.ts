import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import {
  ActivityStoreError,
  bufferedActivityLog,
  deadLetterFile,
  type ActivityLogProblem,
  type ActivityLogStore,
  type DeadLetter,
} from '../src/index.js';
import { entryOfDeadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

/**
 * A store that records each batch, fails as unavailable while `failing` is set,
 * and refuses (as a database would, the whole batch) any batch holding an entry
 * `refuses` picks. `attempts(n)` resolves once write has been called n times:
 * tests wait for that, never for a fixed time.
 */
function scriptedStore(refuses: (entry: ActivityEntry) => boolean = () => false) {
  const batches: ActivityEntry[][] = [];
  const state = { failing: false, closed: false, calls: 0 };
  const waiters: Array<{ calls: number; resolve: () => void }> = [];
  const store: ActivityLogStore = {
    write(entries) {
      state.calls += 1;
      for (const waiter of waiters.filter((w) => w.calls <= state.calls)) waiter.resolve();
      if (state.failing) return Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down'));
      if (entries.some(refuses))
        return Promise.reject(new ActivityStoreError('refused', '22001', 'value too long for type character varying(64)'));
      batches.push([...entries]);
      return Promise.resolve();
    },
    ping: () => (state.failing ? Promise.reject(new Error('store down')) : Promise.resolve()),
    close() {
      state.closed = true;
      return Promise.resolve();
    },
  };
  const attempts = (calls: number) => new Promise<void>((resolve) => (state.calls >= calls ? resolve() : waiters.push({ calls, resolve })));
  return { store, batches, state, attempts };
}

/** A dead letter that keeps what it is given, or fails every append when `failing`. */
function memoryDeadLetter(failing = false) {
  const entries: Array<{ entry: ActivityEntry; code: string; reason: string }> = [];
  const deadLetter: DeadLetter = {
    append(entry, refusal) {
      if (failing) return Promise.reject(new Error('EROFS: read-only file system'));
      entries.push({ entry, ...refusal });
      return Promise.resolve(true);
    },
    close: () => Promise.resolve(),
    size: () => Promise.resolve(0),
    maxBytes: Infinity,
  };
  return { deadLetter, entries };
}

const entries = (n: number, from = 1) => Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(from + i) }));
const ids = (list: readonly ActivityEntry[]) => list.map((e) => e.entityId);
const poisoned = (entityId: bigint) => sampleEntry({ entityId, clientIp: 'x'.repeat(100) });
const isPoisoned = (entry: ActivityEntry) => (entry.clientIp?.length ?? 0) > 64;

describe('buffered activity log', () => {
  it('does not write during record: the write comes on a later tick', async () => {
    const { store, batches } = scriptedStore();
    const log = bufferedActivityLog(store);
    void log.record(sampleEntry());
    expect(batches).toHaveLength(0);
    await log.flush();
    expect(batches).toHaveLength(1);
  });

  it('turns many entries recorded together into few batch writes', async () => {
    const { store, batches } = scriptedStore();
    const log = bufferedActivityLog(store, { maxBatch: 500 });
    for (const entry of entries(1200)) void log.record(entry);
    await log.flush();
    expect(batches.map((batch) => batch.length)).toEqual([500, 500, 200]);
    expect(log.stats()).toEqual({
      written: 1200,
      retried: 0,
      dropped: 0,
      spilled: 0,
      queued: 0,
      deadLettered: 0,
      deadLetterFailed: 0,
      deadLetterDropped: 0,
      logged: 0,
      spooled: 0,
      spoolSkipped: 0,
      adopted: 0,
      adoptedFound: 0,
      leftInSpool: 0,
      spoolBytes: 0,
      spoolMaxBytes: 0,
      deadLetterMaxBytes: 0,
    });
  });

  it('retries while the store is down and loses nothing once it is back', async () => {
    const { store, batches, state, attempts } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { retryMinMs: 5, retryMaxMs: 20, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(50)) void log.record(entry);
    await attempts(3);
    expect(batches).toHaveLength(0);
    state.failing = false;
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(entries(50)));
    expect(log.stats()).toMatchObject({ written: 50, deadLettered: 0 });
    expect(log.stats().retried).toBeGreaterThanOrEqual(3);
    expect(problems.filter((p) => p.kind === 'write-failed').length).toBe(log.stats().retried);
  });

  it('without a dead-letter file, drops and counts entries past the queue bound, and reports it', async () => {
    const { store, state } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { maxQueue: 10, retryMinMs: 5, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(25)) void log.record(entry);
    expect(log.stats()).toMatchObject({ dropped: 15, queued: 10 });
    expect(problems).toContainEqual({ kind: 'dropped', dropped: 1 });
    state.failing = false;
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 10, dropped: 15, queued: 0 });
  });

  it('writes what is queued on close, then closes the store', async () => {
    const { store, batches, state } = scriptedStore();
    const log = bufferedActivityLog(store);
    for (const entry of entries(3)) void log.record(entry);
    await log.close(1_000);
    expect(batches.flat()).toHaveLength(3);
    expect(state.closed).toBe(true);
  });

  it('gives up at the close deadline when the store stays down; without a dead-letter file or spool, each entry goes whole to stderr', async () => {
    const { store, state } = scriptedStore();
    const problems: ActivityLogProblem[] = [];
    const stderr: string[] = [];
    const log = bufferedActivityLog(store, { retryMinMs: 5, onProblem: (p) => problems.push(p), stderr: (line) => stderr.push(line) });
    state.failing = true;
    for (const entry of entries(4)) void log.record(entry);
    await log.close(50);
    expect(stderr.map((line) => entryOfDeadLetterLine(line)?.entityId)).toEqual(ids(entries(4)));
    expect(log.stats()).toMatchObject({ logged: 4, deadLetterFailed: 4 });
    expect(state.closed).toBe(true);
  });

  it('past the queue bound, sets entries aside in the dead-letter file instead of dropping them', async () => {
    const { store, batches, state } = scriptedStore();
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { maxQueue: 10, retryMinMs: 5, deadLetter, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(25)) void log.record(entry);
    state.failing = false;
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(entries(10)));
    expect(ids(setAside.map((s) => s.entry))).toEqual(ids(entries(15, 11)));
    expect(new Set(setAside.map((s) => s.code))).toEqual(new Set(['QUEUE_FULL']));
    expect(log.stats()).toMatchObject({ written: 10, spilled: 15, dropped: 0, queued: 0 });
    // Reported once a second at most, not once per entry.
    expect(problems.filter((p) => p.kind === 'spilled')).toEqual([{ kind: 'spilled', spilled: 1 }]);
  });

  it('bounds the queue in bytes too: large entries go to the dead-letter file once the bytes are used up', async () => {
    const { store, batches, state } = scriptedStore();
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const log = bufferedActivityLog(store, { maxQueueBytes: 100_000, retryMinMs: 5, deadLetter });
    state.failing = true;
    const large = Array.from({ length: 10 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1), details: { field: 'x'.repeat(30_000) } }));
    for (const entry of large) void log.record(entry);
    expect(log.stats().queued).toBe(3);
    state.failing = false;
    await log.flush();
    expect(ids(batches.flat())).toEqual([1n, 2n, 3n]);
    expect(ids(setAside.map((s) => s.entry))).toEqual([4n, 5n, 6n, 7n, 8n, 9n, 10n]);
    expect(setAside[0]?.entry.details).toEqual({ field: 'x'.repeat(30_000) });
  });

  it('at the close deadline with the store down, sets every queued entry aside: none lost', async () => {
    const { store, state } = scriptedStore();
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { retryMinMs: 5, deadLetter, onProblem: (p) => problems.push(p) });
    state.failing = true;
    for (const entry of entries(4)) void log.record(entry);
    await log.close(50);
    expect(ids(setAside.map((s) => s.entry))).toEqual(ids(entries(4)));
    expect(new Set(setAside.map((s) => s.code))).toEqual(new Set(['UNWRITTEN_AT_CLOSE']));
    expect(problems).toContainEqual({ kind: 'unwritten-at-close', setAside: 4, lost: 0, leftInSpool: 0 });
    expect(log.stats()).toMatchObject({ spilled: 4, queued: 0 });
    expect(state.closed).toBe(true);
  });

  it('at the close deadline with a write that never answers: that batch counts as lost (it may have landed), the rest is set aside', async () => {
    const hanging: ActivityEntry[][] = [];
    let started!: () => void;
    const writeStarted = new Promise<void>((resolve) => (started = resolve));
    const store: ActivityLogStore = {
      write(batch) {
        hanging.push([...batch]);
        started();
        return new Promise<void>(() => undefined);
      },
      ping: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { maxBatch: 3, lingerMs: 0, deadLetter, onProblem: (p) => problems.push(p) });
    for (const entry of entries(5)) void log.record(entry);
    await writeStarted;
    expect(hanging[0]).toHaveLength(3);
    await log.close(20);
    expect(ids(setAside.map((s) => s.entry))).toEqual([4n, 5n]);
    expect(problems).toContainEqual({ kind: 'unwritten-at-close', setAside: 2, lost: 3, leftInSpool: 0 });
  });

  it('keeps writing when the problem reporter throws', async () => {
    const { store, batches, state, attempts } = scriptedStore();
    const log = bufferedActivityLog(store, {
      retryMinMs: 5,
      onProblem: () => {
        throw new Error('reporter broke');
      },
    });
    state.failing = true;
    void log.record(sampleEntry());
    await attempts(2);
    state.failing = false;
    await log.flush();
    expect(batches).toHaveLength(1);
  });
});

describe('buffered activity log: entries the store refuses', () => {
  it('one refused entry between good ones: every good entry written in order, the refused one set aside whole, not retried', async () => {
    const { store, batches } = scriptedStore(isPoisoned);
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { deadLetter, onProblem: (p) => problems.push(p) });
    const bad = poisoned(26n);
    const all = [...entries(25), bad, ...entries(51, 27)];
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all.filter((e) => e !== bad)));
    expect(setAside).toEqual([{ entry: bad, code: '22001', reason: 'value too long for type character varying(64)' }]);
    expect(log.stats()).toMatchObject({ written: 76, deadLettered: 1, deadLetterFailed: 0, retried: 0, queued: 0 });
    expect(problems).toEqual([
      expect.objectContaining({ kind: 'refused', entry: { requestId: 'req-1', eventKey: 'cotizaciones.update', entityId: '26' } }),
    ]);
  });

  it('several refused entries in one batch, first and last included: each found and set aside, the rest written', async () => {
    const { store, batches } = scriptedStore(isPoisoned);
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const log = bufferedActivityLog(store, { deadLetter, maxBatch: 100 });
    const all = entries(100).map((entry, i) => ([0, 41, 42, 77, 99].includes(i) ? poisoned(entry.entityId) : entry));
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all.filter((e) => !isPoisoned(e))));
    expect(ids(setAside.map((s) => s.entry))).toEqual([1n, 42n, 43n, 78n, 100n]);
    expect(log.stats()).toMatchObject({ written: 95, deadLettered: 5 });
  });

  it('a store that goes down while a refused batch is being split: retried, and still nothing lost', async () => {
    const { store, batches, state, attempts } = scriptedStore(isPoisoned);
    const { deadLetter, entries: setAside } = memoryDeadLetter();
    const log = bufferedActivityLog(store, { deadLetter, retryMinMs: 5, retryMaxMs: 10 });
    const all = [...entries(10), poisoned(11n), ...entries(10, 12)];
    for (const entry of all) void log.record(entry);
    await attempts(2); // the whole batch refused, then the first half tried
    state.failing = true;
    await attempts(5);
    state.failing = false;
    await log.flush();
    expect(ids(batches.flat())).toEqual(ids(all.filter((e) => !isPoisoned(e))));
    expect(ids(setAside.map((s) => s.entry))).toEqual([11n]);
    expect(log.stats().retried).toBeGreaterThanOrEqual(1);
  });

  it('a dead-letter file that cannot be written: reported loudly and counted, the entry whole on stderr, the other entries still written', async () => {
    const { store, batches } = scriptedStore(isPoisoned);
    const { deadLetter } = memoryDeadLetter(true);
    const problems: ActivityLogProblem[] = [];
    const stderr: string[] = [];
    const log = bufferedActivityLog(store, { deadLetter, onProblem: (p) => problems.push(p), stderr: (line) => stderr.push(line) });
    const all = [...entries(3), poisoned(4n), ...entries(3, 5)];
    for (const entry of all) void log.record(entry);
    await log.flush();
    expect(ids(batches.flat())).toEqual([1n, 2n, 3n, 5n, 6n, 7n]);
    expect(log.stats()).toMatchObject({ written: 6, deadLettered: 0, deadLetterFailed: 1, logged: 1 });
    expect(stderr.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ code: '22001', entry: expect.objectContaining({ entityId: '4' }) as unknown }),
    ]);
    expect(problems.map((p) => p.kind)).toEqual(['refused', 'dead-letter-failed']);
  });
});

describe('dead-letter file', () => {
  it('holds each refused entry whole on one JSON line, entityId as text, with when and why; close waits for pending appends', async () => {
    const file = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    const { store } = scriptedStore(isPoisoned);
    const log = bufferedActivityLog(store, { deadLetter: deadLetterFile(file) });
    const bad = [poisoned(9223372036854775807n), sampleEntry({ ...poisoned(5n), details: { field: 'ñ 😀 "q"' }, requestId: undefined })];
    for (const entry of [sampleEntry(), ...bad]) void log.record(entry);
    await log.close(1_000);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    const records = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      code: '22001',
      reason: 'value too long for type character varying(64)',
      entry: { entityId: '9223372036854775807' },
    });
    expect(Date.parse(String(records[0]?.refusedAt))).toBeGreaterThan(Date.now() - 60_000);
    expect(lines.slice(0, -1).map(entryOfDeadLetterLine)).toEqual(bad);
  });

  it('a path that cannot be written (a file where the directory should be): the append fails, it does not throw into the writer', async () => {
    const dir = temporaryDir('dead-letter-');
    writeFileSync(join(dir, 'not-a-dir'), '');
    const { store, batches } = scriptedStore(isPoisoned);
    const problems: ActivityLogProblem[] = [];
    const stderr: string[] = [];
    const log = bufferedActivityLog(store, {
      deadLetter: deadLetterFile(join(dir, 'not-a-dir', 'dead.jsonl')),
      onProblem: (p) => problems.push(p),
      stderr: (line) => stderr.push(line),
    });
    for (const entry of [poisoned(1n), sampleEntry({ entityId: 2n })]) void log.record(entry);
    await log.close(1_000);
    expect(ids(batches.flat())).toEqual([2n]);
    expect(problems.find((p) => p.kind === 'dead-letter-failed')).toMatchObject({ failed: 1, error: expect.any(Error) as unknown });
    // Whole, as the dead-letter file's own line: `replay-dead-letter --from-log` reads it back.
    expect(stderr.map((line) => entryOfDeadLetterLine(line))).toEqual([poisoned(1n)]);
  });
});

describe('the dead-letter file is bounded whatever the entries hold', () => {
  const huge = (entityId: bigint) => poisonedWith(entityId, 'é'.repeat(450_000));
  const poisonedWith = (entityId: bigint, value: string) =>
    sampleEntry({ entityId, clientIp: 'x'.repeat(100), details: { field: 'observaciones', value } });

  it('keeps a line within 64 KiB: the longest values cut, saying how long they were; the cut line still replays', async () => {
    const path = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    const file = deadLetterFile(path);
    expect(await file.append(huge(26n), { code: '22001', reason: 'r'.repeat(100_000) })).toBe(true);
    await file.close();
    const [line] = readFileSync(path, 'utf8').split('\n');
    expect(Buffer.byteLength(`${line}\n`)).toBeLessThanOrEqual(64 * 1024);
    const record = JSON.parse(line!) as { reason: string; entry: { details: { value: string } } };
    expect(record.entry.details.value).toMatch(/^é*…\[cut: 900000 bytes\]$/);
    expect(record.reason).toMatch(/^r+…\[cut: 100000 bytes\]$/);
    const replayed = entryOfDeadLetterLine(line!);
    expect(replayed).toMatchObject({ entityId: 26n, details: { field: 'observaciones', value: record.entry.details.value } });
  });

  it('past ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES drops refused entries, counts them and says so once a minute; entries set aside at close are kept', async () => {
    const path = join(temporaryDir('dead-letter-'), 'dead.jsonl');
    // Room for three cut lines.
    const deadLetter = deadLetterFile(path, { maxBytes: 3 * 64 * 1024 + 1024 });
    const { store, state } = scriptedStore(isPoisoned);
    const problems: ActivityLogProblem[] = [];
    const log = bufferedActivityLog(store, { deadLetter, onProblem: (problem) => problems.push(problem), lingerMs: 0 });
    for (let id = 1n; id <= 10n; id += 1n) void log.record(huge(id));
    await log.flush();
    expect(log.stats()).toMatchObject({ deadLettered: 3, deadLetterDropped: 7, deadLetterFailed: 0 });
    expect(problems.filter((problem) => problem.kind === 'dead-letter-full')).toEqual([{ kind: 'dead-letter-full', dropped: 1 }]);
    const sizeAtBound = readFileSync(path).length;
    expect(sizeAtBound).toBeLessThanOrEqual(3 * 64 * 1024 + 1024);

    // The store goes down: what is still queued at close is the only copy, set aside past the bound.
    state.failing = true;
    void log.record(sampleEntry({ entityId: 99n }));
    await log.close(50);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[3]!)).toMatchObject({ code: 'UNWRITTEN_AT_CLOSE', entry: { entityId: '99' } });
  });
});
