import type { ActivityEntry, ActivityLog } from '@cotizaciones/core';
import type { ActivityLogStore } from './activity-log-store.js';
import { isRefusal, type ActivityStoreError } from './activity-store-error.js';
import { batchSpans } from './batch-spans.js';
import type { DeadLetter } from './dead-letter-file.js';

export interface ActivityLogStats {
  readonly written: number;
  /** Failed batch writes (store unavailable) that were tried again. */
  readonly retried: number;
  /** Entries lost because the queue was full and no dead-letter file could take them. */
  readonly dropped: number;
  /**
   * Entries set aside in the dead-letter file because the store could not take them in time:
   * past the queue's bound while it was down, or still queued when the log closed.
   */
  readonly spilled: number;
  readonly queued: number;
  /** Entries the store refused for what they hold, set aside in the dead-letter file. */
  readonly deadLettered: number;
  /** Entries the store refused that could not be set aside either: lost. */
  readonly deadLetterFailed: number;
  /** Entries not set aside because the dead-letter file was at its bound: dropped. */
  readonly deadLetterDropped: number;
}

/** The entry's identifying fields, for the server log (its values stay in the dead-letter file). */
export interface EntryRef {
  readonly requestId: string | undefined;
  readonly eventKey: string;
  readonly entityId: string;
}

export type ActivityLogProblem =
  | { readonly kind: 'write-failed'; readonly error: unknown; readonly attempt: number; readonly queued: number }
  | { readonly kind: 'refused'; readonly error: ActivityStoreError; readonly entry: EntryRef }
  | { readonly kind: 'dead-letter-failed'; readonly error: unknown; readonly entry: EntryRef; readonly lost: number }
  | { readonly kind: 'dropped'; readonly dropped: number }
  /** At most once a second while it goes on: entries set aside because the queue was full. */
  | { readonly kind: 'spilled'; readonly spilled: number }
  /** `setAside`: written to the dead-letter file instead; `lost`: neither written nor set aside. */
  | { readonly kind: 'unwritten-at-close'; readonly setAside: number; readonly lost: number }
  /** At most once a minute while it goes on: entries dropped because the dead-letter file is at its bound. */
  | { readonly kind: 'dead-letter-full'; readonly dropped: number };

export interface BufferedActivityLogOptions {
  /** Entries held in memory at most; past it new entries go to the dead-letter file (or are dropped without one). */
  readonly maxQueue?: number;
  /** The same bound in (estimated) bytes: 10 000 entries of 1 MiB each would not fit in memory. */
  readonly maxQueueBytes?: number;
  /** Entries per INSERT. */
  readonly maxBatch?: number;
  /** How long a partial batch waits for more entries: fewer, larger INSERTs under load. */
  readonly lingerMs?: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** Where entries the store refuses or cannot take in time are set aside; without one they are reported and lost. */
  readonly deadLetter?: DeadLetter | undefined;
  /** Told of every failed write and, at most once a second, of dropped entries: the server log. */
  readonly onProblem?: (problem: ActivityLogProblem) => void;
  /** Each store write as a span, linked to the requests its entries came from (OpenTelemetry started). */
  readonly traced?: boolean | undefined;
  /**
   * Called, synchronously, before entries leave the queue for the store or the dead-letter file: the
   * CLI writes out its journal there, so no entry is stored before the journal names its line.
   */
  readonly beforeWrite?: (() => void) | undefined;
}

export interface BufferedActivityLog extends ActivityLog {
  stats(): ActivityLogStats;
  /** Writes what is queued (for at most `timeoutMs`), then closes the store and the dead-letter file. */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The activity log in front of a store: `record` only enqueues; a single
 * writer drains the queue in batches on a later tick (after `lingerMs`, so a
 * write never delays a response and batches fill up under load).
 *
 * A store that is unavailable is retried with exponential backoff; meanwhile the
 * queue holds `maxQueue` entries and `maxQueueBytes`, and what does not fit — or is
 * still queued at close — goes to the dead-letter file, for the replay command.
 * A batch the store refuses is split in halves until the refused entries are found
 * alone: each is set aside in the dead-letter file, every other entry is written.
 */
export function bufferedActivityLog(store: ActivityLogStore, options: BufferedActivityLogOptions = {}): BufferedActivityLog {
  const maxQueue = options.maxQueue ?? 10_000;
  const maxQueueBytes = options.maxQueueBytes ?? 64 * 1024 * 1024;
  const maxBatch = options.maxBatch ?? 500;
  const lingerMs = options.lingerMs ?? 20;
  const retryMinMs = options.retryMinMs ?? 100;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const deadLetter = options.deadLetter;
  const spans = options.traced ? batchSpans() : undefined;
  const beforeWrite = options.beforeWrite ?? (() => undefined);
  const report = (problem: ActivityLogProblem) => {
    try {
      options.onProblem?.(problem);
    } catch {
      // A failing reporter must not stop the writer.
    }
  };

  const queue: ActivityEntry[] = [];
  // The estimated size of each queued entry, in step with `queue`.
  const sizes: number[] = [];
  let queuedBytes = 0;
  let draining = false;
  let closed = false;
  // Set at close once the queue has been handed to the dead-letter file: a write still in flight must not touch it.
  let handedOver = false;
  // The write under way, for how many entries at the head of the queue.
  let writing: Promise<void> | undefined;
  let writingCount = 0;
  let spilled = 0;
  let lastSpillReport = 0;
  let idle: Array<() => void> = [];
  const settingAside = new Set<Promise<void>>();
  let written = 0;
  let retried = 0;
  let dropped = 0;
  let deadLettered = 0;
  let deadLetterFailed = 0;
  let deadLetterDropped = 0;
  let lastDropReport = 0;
  let lastFullReport = -Infinity;

  /** An entry the full dead-letter file could not take: counted, and said at most once a minute. */
  function droppedAtBound(): void {
    deadLetterDropped += 1;
    const now = Date.now();
    if (now - lastFullReport >= 60_000) {
      lastFullReport = now;
      report({ kind: 'dead-letter-full', dropped: deadLetterDropped });
    }
  }

  function take(count: number): ActivityEntry[] {
    const removed = sizes.splice(0, count);
    for (const size of removed) queuedBytes -= size;
    return queue.splice(0, count);
  }

  /** Sets aside entries the store could not take in time (not refused: replaying them as they are will work). */
  function spill(entries: readonly ActivityEntry[], code: string, reason: string, bounded: boolean): Promise<number> {
    beforeWrite();
    const appends = entries.map((entry) => {
      if (!deadLetter) return Promise.resolve(false);
      const appending = deadLetter.append(entry, { code, reason }, { bounded }).then(
        (kept) => (kept ? (spilled += 1) : droppedAtBound(), kept),
        (cause: unknown) => {
          deadLetterFailed += 1;
          const ref = { requestId: entry.requestId, eventKey: entry.eventKey, entityId: entry.entityId.toString() };
          report({ kind: 'dead-letter-failed', error: cause, entry: ref, lost: deadLetterFailed });
          return false;
        },
      );
      const tracked = appending.then(() => undefined);
      settingAside.add(tracked);
      void tracked.finally(() => settingAside.delete(tracked));
      return appending;
    });
    return Promise.all(appends).then((done) => done.filter(Boolean).length);
  }

  function setAside(entry: ActivityEntry, error: ActivityStoreError): void {
    const ref = { requestId: entry.requestId, eventKey: entry.eventKey, entityId: entry.entityId.toString() };
    report({ kind: 'refused', error, entry: ref });
    const lost = (cause: unknown) => {
      deadLetterFailed += 1;
      report({ kind: 'dead-letter-failed', error: cause, entry: ref, lost: deadLetterFailed });
    };
    if (!deadLetter) return lost(new Error('no dead-letter file configured'));
    beforeWrite();
    // Not awaited: the writer goes on with the next batch while the file is appended to.
    const appending = deadLetter.append(entry, { code: error.code, reason: error.message }).then((kept) => {
      if (kept) deadLettered += 1;
      else droppedAtBound();
    }, lost);
    settingAside.add(appending);
    void appending.finally(() => settingAside.delete(appending));
  }

  async function drain(): Promise<void> {
    let attempt = 0;
    // How many entries at the head of the queue are known to hold one the store refuses.
    let suspect = 0;
    while (queue.length > 0 && !closed) {
      if (suspect === 0 && queue.length < maxBatch && lingerMs > 0) await sleep(lingerMs);
      const batch = queue.slice(0, suspect === 0 ? maxBatch : Math.ceil(suspect / 2));
      try {
        beforeWrite();
        writing = spans ? spans.write(batch, () => store.write(batch)) : store.write(batch);
        writingCount = batch.length;
        await writing;
        writing = undefined;
        if (handedOver) return;
        take(batch.length);
        written += batch.length;
        attempt = 0;
        suspect = Math.max(0, suspect - batch.length);
      } catch (error) {
        writing = undefined;
        if (handedOver) return;
        if (isRefusal(error)) {
          attempt = 0;
          if (batch.length > 1) {
            suspect = batch.length;
          } else {
            take(1);
            suspect = 0;
            setAside(batch[0]!, error);
          }
          continue;
        }
        attempt += 1;
        retried += 1;
        report({ kind: 'write-failed', error, attempt, queued: queue.length });
        await sleep(Math.min(retryMaxMs, retryMinMs * 2 ** (attempt - 1)));
      }
    }
    draining = false;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  }

  async function flush(): Promise<void> {
    if (draining) await new Promise<void>((resolve) => idle.push(resolve));
    await Promise.all([...settingAside]);
  }

  return {
    record(entry) {
      const size = estimatedSize(entry);
      if (queue.length >= maxQueue || queuedBytes + size > maxQueueBytes) {
        const now = Date.now();
        if (deadLetter) {
          void spill([entry], 'QUEUE_FULL', 'the activity log queue was full while the store could not take entries', true);
          if (now - lastSpillReport >= 1_000) {
            lastSpillReport = now;
            report({ kind: 'spilled', spilled: spilled + 1 });
          }
          return;
        }
        dropped += 1;
        if (now - lastDropReport >= 1_000) {
          lastDropReport = now;
          report({ kind: 'dropped', dropped });
        }
        return;
      }
      spans?.recorded(entry);
      queue.push(entry);
      sizes.push(size);
      queuedBytes += size;
      if (!draining) {
        draining = true;
        setImmediate(() => void drain());
      }
    },
    flush,
    stats: () => ({ written, retried, dropped, spilled, queued: queue.length, deadLettered, deadLetterFailed, deadLetterDropped }),
    async close(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([flush(), deadline]);
      clearTimeout(timer);
      closed = true;
      if (queue.length > 0) {
        // A write under way may still land: give it a moment, then its batch counts as lost, not set aside, so no entry is stored twice.
        if (writing) await Promise.race([writing.catch(() => undefined), sleep(IN_FLIGHT_GRACE_MS)]);
        const uncertain = writing ? writingCount : 0;
        handedOver = true;
        const rest = take(queue.length).slice(uncertain);
        // The only copy of entries the service took: set aside whatever the file's bound.
        const setAside = await spill(rest, 'UNWRITTEN_AT_CLOSE', 'the activity log closed while the store could not take entries', false);
        report({ kind: 'unwritten-at-close', setAside, lost: uncertain + rest.length - setAside });
      }
      await store.close();
      // Lines being appended are finished, not cut: they are the only copy of their entries.
      await deadLetter?.close();
    },
  };
}

const IN_FLIGHT_GRACE_MS = 1_000;

/**
 * Roughly what an entry holds, in characters: what the queue's byte bound counts. Cheap (no
 * serialising): the use cases put only strings in `details`; anything else counts as JSON.
 */
function estimatedSize(entry: ActivityEntry): number {
  let size = 256 + entry.description.length + (entry.userAgent?.length ?? 0) + entry.userId.length;
  for (const value of Object.values(entry.details ?? {})) size += 16 + (typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0));
  return size;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
