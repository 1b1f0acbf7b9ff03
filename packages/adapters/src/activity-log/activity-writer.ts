import type { ActivityEntry } from '@cotizaciones/core';
import type { ActivityLogStore } from './activity-log-store.js';
import { isRefusal, type ActivityStoreError } from './activity-store-error.js';
import type { ActivityQueue, QueuedEntry } from './activity-queue.js';
import type { BatchSpans } from './batch-spans.js';
import type { Clock } from './clock.js';

/** A store as the writer uses it: batches, and, when it can, which request ids it holds already. */
export type WritableStore = ActivityLogStore & {
  readonly storedRequestIds?: (requestIds: readonly string[]) => Promise<Set<string>>;
};

export interface WriterOptions {
  readonly store: WritableStore;
  readonly queue: ActivityQueue;
  readonly clock: Clock;
  /** Entries per batch. */
  readonly maxBatch: number;
  /** Bytes per batch (the queue's sizes): below the store's own limit on a statement. */
  readonly maxBatchBytes: () => number;
  /** How long a partial batch waits for more entries. */
  readonly lingerMs: number;
  readonly retryMinMs: number;
  readonly retryMaxMs: number;
  readonly spans: BatchSpans | undefined;
  /** Called synchronously before entries leave the queue (the CLI writes out its journal). */
  readonly beforeWrite: () => void;
  /** `batch` left the queue: `stored` of them written now, the others found in the store already. */
  readonly onWritten: (batch: readonly QueuedEntry[], stored: number) => void;
  /** The store refused this entry for what it holds (alone): to be set aside. */
  readonly onRefused: (item: QueuedEntry, error: ActivityStoreError) => void;
  /** This entry fails alone while the store answers and writes other entries: to be set aside, with the failure. */
  readonly onUnwritable: (item: QueuedEntry, error: unknown) => void;
  /** A write failed (the store unavailable): reported, retried. */
  readonly onFailed: (error: unknown, attempt: number) => void;
}

/** After ENOSPC (or SQLite's SQLITE_FULL), tries at most this far apart: writing resumes soon after space returns. */
const DISK_FULL_RETRY_MS = 1_000;
/** A batch of several entries that fails this many times in a row is split, whatever the failure. */
const SPLIT_AFTER_FAILURES = 2;

/**
 * The single writer that drains the queue into the store, in batches bounded in entries and bytes.
 *
 * - A batch the store refuses is split in halves until the refused entries are found alone: each is
 *   handed to `onRefused`, every other entry written.
 * - A batch that fails as unavailable is tried again: at once while the store answers a ping (the
 *   batch, not the store, is the trouble: a statement past the server's packet limit fails as a lost
 *   connection), after an exponential backoff while it does not (at most 1 s apart after ENOSPC).
 *   After two failures in a row a batch of several entries is split the same way as a refused one;
 *   an entry that fails alone twice in a row, the store answering each time, is parked: the entries
 *   behind it go on. It is tried again alone right after the store has written others, and only a
 *   failure then goes to `onUnwritable`: a store that answers pings but takes nothing (its table
 *   gone) sets nothing aside; the parked entries are written once it is back.
 * - Entries taken over from another process's spool are first looked up in the store by request id,
 *   before every try until they are written.
 */
export function activityWriter(options: WriterOptions) {
  const { store, queue, clock, maxBatch, lingerMs, retryMinMs, retryMaxMs, spans, beforeWrite } = options;
  let running = false;
  let stopped = false;
  let handedOver = false;
  let writing: Promise<number> | undefined;
  let inFlight: readonly QueuedEntry[] = [];
  let idle: Array<() => void> = [];
  // Batches written so far: a parked entry is judged only after the store has written others since it stepped aside.
  let batchesWritten = 0;
  const othersWritten = (item: QueuedEntry) => batchesWritten > (item.parkedAt ?? Infinity);

  const write = (entries: readonly ActivityEntry[]) => (spans ? spans.write(entries, () => store.write(entries)) : store.write(entries));

  /**
   * The batch's entries the store does not hold yet (only those it may hold are looked up). They stay
   * marked until written: a failed write of the others, or a split, must not write them after all.
   */
  async function unstored(batch: readonly QueuedEntry[]): Promise<QueuedEntry[]> {
    const asked = batch.filter((item) => item.maybeStored && item.entry.requestId !== undefined);
    if (asked.length === 0 || !store.storedRequestIds) return [...batch];
    const held = await store.storedRequestIds(asked.map((item) => item.entry.requestId!));
    return batch.filter((item) => item.entry.requestId === undefined || !held.has(item.entry.requestId));
  }

  /** Whether the store answers a ping: then what failed is the batch, not the store. */
  async function answers(): Promise<boolean> {
    try {
      await store.ping();
      return true;
    } catch {
      return false;
    }
  }

  async function backoff(error: unknown, attempt: number): Promise<void> {
    const delay = Math.min(retryMaxMs, retryMinMs * 2 ** (attempt - 1));
    await clock.sleep(isDiskFull(error) ? Math.min(delay, DISK_FULL_RETRY_MS) : delay);
  }

  async function drain(): Promise<void> {
    let attempt = 0;
    // How many entries at the head of the queue hold one the store cannot take: batches halve within them.
    let suspect = 0;
    // Failed tries of the head batch, for any reason; and of those, how many in a row while the store answered.
    let failures = 0;
    let strikes = 0;
    while (queue.length > 0 && !stopped) {
      const retry = queue.parked(othersWritten);
      let batch = retry ? [retry] : queue.head(suspect === 0 ? maxBatch : Math.ceil(suspect / 2), options.maxBatchBytes());
      if (!retry && suspect === 0 && batch.length > 0 && batch.length < maxBatch && lingerMs > 0) {
        await clock.sleep(lingerMs);
        batch = queue.head(maxBatch, options.maxBatchBytes());
      }
      if (stopped) break;
      // Only parked entries left, the store having written nothing since: tried again (after the backoff below).
      if (batch.length === 0) batch = [queue.parked(() => true)!];
      try {
        beforeWrite();
        inFlight = batch;
        // The lookup is part of the write under way: a stop waits for both alike.
        writing = (async () => {
          const fresh = await unstored(batch);
          if (fresh.length > 0) await write(fresh.map((item) => item.entry));
          return fresh.length;
        })();
        const stored = await writing;
        writing = undefined;
        inFlight = [];
        if (handedOver) return;
        queue.remove(batch);
        options.onWritten(batch, stored);
        if (batch.every((item) => item.parkedAt === undefined)) batchesWritten += 1;
        attempt = 0;
        failures = 0;
        strikes = 0;
        suspect = Math.max(0, suspect - batch.length);
      } catch (error) {
        writing = undefined;
        inFlight = [];
        if (handedOver) return;
        if (isRefusal(error)) {
          attempt = 0;
          failures = 0;
          strikes = 0;
          if (batch.length > 1) {
            suspect = batch.length;
          } else {
            queue.remove(batch);
            suspect = 0;
            options.onRefused(batch[0]!, error);
          }
          continue;
        }
        failures += 1;
        options.onFailed(error, attempt + 1);
        // A full disk is the store's, whatever answers: never the entry's fault.
        const up = !isDiskFull(error) && (await answers());
        if (handedOver) return;
        strikes = up ? strikes + 1 : 0;
        const [alone] = batch;
        if (batch.length === 1 && alone!.parkedAt !== undefined) {
          if (up && othersWritten(alone!)) {
            queue.remove(batch);
            options.onUnwritable(alone!, error);
            attempt = 0;
            continue;
          }
        } else if (failures >= SPLIT_AFTER_FAILURES && batch.length > 1) {
          suspect = batch.length;
          failures = 0;
          strikes = 0;
        } else if (strikes >= SPLIT_AFTER_FAILURES && batch.length === 1) {
          alone!.parkedAt = batchesWritten;
          failures = 0;
          strikes = 0;
          suspect = Math.max(0, suspect - 1);
          attempt = 0;
          continue;
        }
        // The batch, not the store, is the trouble: split or parked without waiting. Parked entries alone: wait.
        if (up && queue.head(1, Infinity).length > 0) continue;
        attempt += 1;
        await backoff(error, attempt);
      }
    }
    running = false;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  }

  return {
    /** Starts draining on a later turn, if not already. */
    wake(): void {
      if (running || stopped) return;
      running = true;
      setImmediate(() => void drain());
    },
    /** Resolves once the queue is empty (or the writer stopped). */
    idle(): Promise<void> {
      return running ? new Promise<void>((resolve) => idle.push(resolve)) : Promise.resolve();
    },
    /** No new batch starts. */
    stop(): void {
      stopped = true;
      if (!running) return;
      // A writer asleep (linger, backoff) never wakes to say it is idle: say it now.
      running = false;
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    },
    /** The write under way, if any, and its entries. */
    inFlight: () => ({ writing, entries: inFlight }),
    /** The write under way no longer counts: its entries are the closer's now. */
    handOver(): void {
      handedOver = true;
    },
  };
}

export type ActivityWriter = ReturnType<typeof activityWriter>;

function isDiskFull(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'ENOSPC' || code === 'EDQUOT' || code.startsWith('SQLITE_FULL');
}
