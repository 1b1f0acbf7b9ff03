import type { ActivityEntry, ActivityLog } from '@cotizaciones/core';
import type { ActivityStoreError } from './activity-store-error.js';
import { activityQueue, estimatedSize, type QueuedEntry } from './activity-queue.js';
import type { ActivitySpool, SpoolTicket, SpoolWrite } from './activity-spool.js';
import { entryLine } from './spool-segment.js';
import { activityWriter, type WritableStore } from './activity-writer.js';
import { batchSpans } from './batch-spans.js';
import { systemClock, type Clock } from './clock.js';
import type { DeadLetter } from './dead-letter-file.js';
import { deadLetterRouter, type SetAsideOutcome } from './dead-letter-router.js';
import type { Refusal } from './dead-letter-line.js';

export interface ActivityLogStats {
  readonly written: number;
  /** Failed batch writes (store unavailable) that were tried again. */
  readonly retried: number;
  /** Entries lost because the queue was full and no dead-letter file was configured. */
  readonly dropped: number;
  /**
   * Entries set aside in the dead-letter file because the store could not take them in time:
   * past the queue's bound while it was down, or still queued when a channel that must exit closed.
   */
  readonly spilled: number;
  /** Entries waiting to be written: in the queue, and those taken over from the spool still waiting there. */
  readonly queued: number;
  /** Entries the store refused (or could not take alone while others were written), set aside in the dead-letter file. */
  readonly deadLettered: number;
  /** Entries the dead-letter file could not take (an error): each written whole to stderr instead. */
  readonly deadLetterFailed: number;
  /** Entries not set aside because the dead-letter file was at its bound: dropped. */
  readonly deadLetterDropped: number;
  /** Entries written whole to stderr as a dead-letter line: neither the store, the spool nor the dead-letter file could take them. */
  readonly logged: number;
  /** Entries written to the spool. */
  readonly spooled: number;
  /** Entries the spool could not take (past its bound, or a disk error): held in memory only. */
  readonly spoolSkipped: number;
  /** Entries taken over at start from segments a stopped process left. */
  readonly adopted: number;
  /** Of those, entries the store already held: not written again. */
  readonly adoptedFound: number;
  /** Entries left in the spool at close, for the next start. */
  readonly leftInSpool: number;
  /** Bytes the spool's segments hold (this process's and those it took over); 0 without a spool. */
  readonly spoolBytes: number;
  /** The spool's bound (ACTIVITY_LOG_SPOOL_MAX_BYTES); 0 without a spool. */
  readonly spoolMaxBytes: number;
  /** The dead-letter file's bound (ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES); 0 without one. */
  readonly deadLetterMaxBytes: number;
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
  /** An entry that fails alone while the entries behind it are written: set aside with its failure. */
  | { readonly kind: 'unwritable'; readonly error: unknown; readonly entry: EntryRef }
  /** The dead-letter file could not take this entry: it went whole to stderr. */
  | { readonly kind: 'dead-letter-failed'; readonly error: unknown; readonly entry: EntryRef; readonly failed: number }
  | { readonly kind: 'dropped'; readonly dropped: number }
  /** At most once a second while it goes on: entries set aside because the queue was full. */
  | { readonly kind: 'spilled'; readonly spilled: number }
  /**
   * At the close: `setAside` written to the dead-letter file, `leftInSpool` kept in the spool for the
   * next start, `lost` neither (a write cut short of an entry the spool did not hold).
   */
  | { readonly kind: 'unwritten-at-close'; readonly setAside: number; readonly lost: number; readonly leftInSpool: number }
  /** At most once a minute while it goes on: entries dropped because the dead-letter file is at its bound. */
  | { readonly kind: 'dead-letter-full'; readonly dropped: number }
  /** At most once a minute while it goes on: entries the spool did not take (`full`: at its bound), held in memory only. */
  | { readonly kind: 'spool-skipped'; readonly reason: 'full' | 'failed'; readonly error?: unknown; readonly skipped: number }
  /** At start: entries taken over from segments a stopped process left, and lines that held none. */
  | { readonly kind: 'adopted'; readonly adopted: number; readonly unreadable: number };

export interface BufferedActivityLogOptions {
  /** Entries held in memory at most; past it new entries go to the dead-letter file (or are dropped without one). */
  readonly maxQueue?: number;
  /** The same bound in bytes: 10 000 entries of 1 MiB each would not fit in memory. */
  readonly maxQueueBytes?: number;
  /** Entries per INSERT. */
  readonly maxBatch?: number;
  /** Bytes per INSERT when the store names no limit of its own. */
  readonly maxBatchBytes?: number;
  /** How long a partial batch waits for more entries: fewer, larger INSERTs under load. */
  readonly lingerMs?: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** Where entries the store refuses or cannot take in time are set aside. */
  readonly deadLetter?: DeadLetter | undefined;
  /** Where every entry is kept before the promise `record` returns settles (the end of its turn), and forwarded from. */
  readonly spool?: ActivitySpool | undefined;
  /**
   * What the close does with entries it could not write in time: `spool` keeps them in the spool for
   * the next start (the server); `dead-letter` sets them aside in the dead-letter file (a channel that
   * will not start again to forward them: the CLI). Entries the spool does not hold are set aside either way.
   */
  readonly unwrittenAtClose?: 'spool' | 'dead-letter';
  /** Told of every failed write and, at most once a second, of dropped entries: the server log. */
  readonly onProblem?: (problem: ActivityLogProblem) => void;
  /** Each store write as a span, linked to the requests its entries came from (OpenTelemetry started). */
  readonly traced?: boolean | undefined;
  /**
   * Called, synchronously, before entries leave the queue for the store or the dead-letter file: the
   * CLI writes out its journal there, so no entry is stored before the journal names its line.
   */
  readonly beforeWrite?: (() => void) | undefined;
  /** Time, for the writer's waits (tests inject their own). */
  readonly clock?: Clock;
  /** Where an entry nothing else could take goes, whole, as a dead-letter line (default: stderr). */
  readonly stderr?: (line: string) => void;
}

export interface BufferedActivityLog extends ActivityLog {
  stats(): ActivityLogStats;
  /**
   * How long (ms, by the log's clock) the oldest entry not yet in the store has waited since its
   * `created_at`: queued, in a write under way or retried, or taken over from the spool and still
   * waiting there; 0 when none waits. Entries set aside no longer count.
   */
  oldestPendingMs(): number;
  /** The dead-letter file's size now (a stat); 0 without one. */
  deadLetterBytes(): Promise<number>;
  /** Writes what is queued (for at most `timeoutMs`), then closes the store, the dead-letter file and the spool. */
  close(timeoutMs?: number): Promise<void>;
}

/** The store's own bound on a batch, when it has one (MySQL's max_allowed_packet). */
export type BoundedStore = WritableStore & { readonly maxBatchBytes?: () => number | undefined };

/**
 * The activity log in front of a store: `record` appends the entry to the spool and queues it; the
 * promise it returns settles once the spool's write of the turn is done (the answer waits for it, so
 * the entry is on disk before the answer is sent); a single writer ({@link activityWriter}) drains the
 * queue in batches on a later tick, and each entry written, or set aside, is acknowledged in the spool.
 *
 * A store that is unavailable is retried with backoff; meanwhile the queue holds `maxQueue` entries
 * and `maxQueueBytes`, and what does not fit goes to the dead-letter file, for the replay command.
 * Entries a stopped process left in the spool are forwarded each once (looked up by request id), as
 * half the queue has room: the others wait in the spool, not in the dead-letter file.
 */
export function bufferedActivityLog(store: BoundedStore, options: BufferedActivityLogOptions = {}): BufferedActivityLog {
  const maxQueue = options.maxQueue ?? 10_000;
  const maxQueueBytes = options.maxQueueBytes ?? 64 * 1024 * 1024;
  const defaultBatchBytes = options.maxBatchBytes ?? DEFAULT_BATCH_BYTES;
  const clock = options.clock ?? systemClock;
  const spool = options.spool;
  const beforeWrite = options.beforeWrite ?? (() => undefined);
  const spans = options.traced ? batchSpans() : undefined;
  const report = (problem: ActivityLogProblem) => {
    try {
      options.onProblem?.(problem);
    } catch {
      // A failing reporter must not stop the writer.
    }
  };
  const refOf = (entry: ActivityEntry): EntryRef => ({
    requestId: entry.requestId,
    eventKey: entry.eventKey,
    entityId: entry.entityId.toString(),
  });

  const queue = activityQueue(maxQueue, maxQueueBytes);
  const router = deadLetterRouter({
    deadLetter: options.deadLetter,
    clock,
    stderr: options.stderr,
    onFailed: (error, entry, failed) => report({ kind: 'dead-letter-failed', error, entry: refOf(entry), failed }),
    onFull: (dropped) => report({ kind: 'dead-letter-full', dropped }),
  });
  const counts = { written: 0, retried: 0, dropped: 0, spooled: 0, spoolSkipped: 0, adopted: 0, adoptedFound: 0, leftInSpool: 0 };
  let lastSpillReport = -Infinity;
  let lastDropReport = -Infinity;
  let lastSpoolReport = -Infinity;
  let closing = false;

  const acknowledge = (items: readonly QueuedEntry[]) => {
    const tickets = items.flatMap((item) => (item.ticket ? [item.ticket] : []));
    if (tickets.length > 0) spool?.acknowledge(tickets);
  };
  /** Sets an entry aside; once it is out of our hands (kept, dropped at the bound, or logged) the spool lets it go. */
  const setAside = (item: QueuedEntry, refusal: Refusal, how: { refused: boolean; bounded: boolean }): Promise<SetAsideOutcome> => {
    beforeWrite();
    return router.setAside(item.entry, refusal, how).then((outcome) => {
      acknowledge([item]);
      return outcome;
    });
  };

  // Entries taken over from the spool join the queue while it is less than half full; the others
  // wait in the spool, never set aside for want of room (a stop leaves them there for the next
  // start). The other half is for new entries, which are set aside once the whole queue is full.
  const adopted = spool?.adopted ?? [];
  let nextAdopted = 0;
  // The oldest created_at from each taken-over entry on, worked out once as they are read: segments
  // of several processes overlap in time, so the next entry to join the queue is not always the oldest.
  const adoptedOldestFrom = new Float64Array(adopted.length + 1);
  adoptedOldestFrom[adopted.length] = Infinity;
  for (let i = adopted.length - 1; i >= 0; i -= 1)
    adoptedOldestFrom[i] = Math.min(adopted[i]!.entry.createdAt.getTime(), adoptedOldestFrom[i + 1]!);
  const takeAdopted = () => {
    while (nextAdopted < adopted.length && !closing) {
      const { entry, ticket } = adopted[nextAdopted]!;
      const bytes = Buffer.byteLength(entryLine(entry));
      if (queue.length > 0 && queue.full(bytes, ADOPTED_SHARE)) return;
      queue.push({ entry, bytes, ticket, maybeStored: true });
      nextAdopted += 1;
    }
  };

  const writer = activityWriter({
    store,
    queue,
    clock,
    maxBatch: options.maxBatch ?? 500,
    maxBatchBytes: () => Math.min(defaultBatchBytes, store.maxBatchBytes?.() ?? Infinity),
    lingerMs: options.lingerMs ?? 20,
    retryMinMs: options.retryMinMs ?? 100,
    retryMaxMs: options.retryMaxMs ?? 30_000,
    spans,
    beforeWrite,
    onWritten(batch, stored) {
      counts.written += stored;
      counts.adoptedFound += batch.length - stored;
      acknowledge(batch);
      takeAdopted();
    },
    onRefused(item, error) {
      report({ kind: 'refused', error, entry: refOf(item.entry) });
      void setAside(item, { code: error.code, reason: error.message }, { refused: true, bounded: true });
      takeAdopted();
    },
    onUnwritable(item, error) {
      report({ kind: 'unwritable', error, entry: refOf(item.entry) });
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
      const reason = `not written alone while the entries behind it were: ${error instanceof Error ? error.message : String(error)}`;
      void setAside(item, { code, reason }, { refused: true, bounded: true });
      takeAdopted();
    },
    onFailed(error, attempt) {
      counts.retried += 1;
      report({ kind: 'write-failed', error, attempt, queued: queue.length });
    },
  });

  /** Queues an entry, or — past the queue's bound — sets it aside (the store is not keeping up). */
  const enqueue = (item: QueuedEntry) => {
    if (!queue.full(item.bytes)) {
      queue.push(item);
      writer.wake();
      return;
    }
    const now = clock.now();
    if (options.deadLetter) {
      void setAside(
        item,
        { code: 'QUEUE_FULL', reason: 'the activity log queue was full while the store could not take entries' },
        { refused: false, bounded: true },
      );
      if (now - lastSpillReport >= 1_000) {
        lastSpillReport = now;
        report({ kind: 'spilled', spilled: router.counts.spilled + 1 });
      }
      return;
    }
    counts.dropped += 1;
    acknowledge([item]);
    if (now - lastDropReport >= 1_000) {
      lastDropReport = now;
      report({ kind: 'dropped', dropped: counts.dropped });
    }
  };

  if (spool && spool.adopted.length > 0) {
    counts.adopted = spool.adopted.length;
    report({ kind: 'adopted', adopted: spool.adopted.length, unreadable: spool.unreadable });
    takeAdopted();
    writer.wake();
  }

  let lastWrite: Promise<SpoolWrite> | undefined;
  let lastWritten: Promise<void> | undefined;
  const spoolSkipped = (reason: 'full' | 'failed', error: unknown, entries: number) => {
    counts.spoolSkipped += entries;
    const now = clock.now();
    if (now - lastSpoolReport >= 60_000) {
      lastSpoolReport = now;
      report({ kind: 'spool-skipped', reason, error, skipped: counts.spoolSkipped });
    }
  };
  const spoolWritten = (result: SpoolWrite) => {
    if (result.kept) counts.spooled += result.entries;
    else spoolSkipped('failed', result.error, result.entries);
  };

  const flush = async () => {
    await writer.idle();
    await router.settled();
  };

  return {
    record(entry) {
      spans?.recorded(entry);
      let ticket: SpoolTicket | undefined;
      let bytes = 0;
      let written: Promise<void> | undefined;
      if (spool && !closing) {
        const appended = spool.append(entry);
        if (appended.ok) {
          ticket = appended.ticket;
          bytes = appended.bytes;
          // One promise for every entry of the turn: the accounting runs once a write.
          if (appended.written !== lastWrite) {
            lastWrite = appended.written;
            lastWritten = appended.written.then(spoolWritten);
          }
          written = lastWritten;
        } else spoolSkipped(appended.reason, appended.error, 1);
      }
      enqueue({ entry, bytes: bytes || estimatedSize(entry), ticket, maybeStored: false });
      return written;
    },
    flush,
    // Entries taken over that still wait in the spool are waiting to be written too.
    stats: () => ({
      ...counts,
      ...router.counts,
      queued: queue.length + adopted.length - nextAdopted,
      spoolBytes: spool?.bytes() ?? 0,
      spoolMaxBytes: spool?.maxBytes ?? 0,
      deadLetterMaxBytes: options.deadLetter?.maxBytes ?? 0,
    }),
    oldestPendingMs() {
      const oldest = Math.min(queue.oldestCreatedAt() ?? Infinity, adoptedOldestFrom[nextAdopted]!);
      return oldest === Infinity ? 0 : Math.max(0, clock.now() - oldest);
    },
    deadLetterBytes: () => options.deadLetter?.size() ?? Promise.resolve(0),
    async close(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([flush(), deadline]);
      clearTimeout(timer);
      closing = true;
      writer.stop();
      let setAsideCount = 0;
      let lost = 0;
      if (queue.length > 0) {
        // A write under way may still land: give it a moment; if it does not, its entries are neither written nor set aside (the spool keeps them).
        const { writing } = writer.inFlight();
        if (writing) await Promise.race([writing.catch(() => undefined), clock.sleep(IN_FLIGHT_GRACE_MS)]);
        const uncertain = new Set(writer.inFlight().entries);
        writer.releaseInFlight();
        const rest = queue.takeAll();
        lost = rest.filter((item) => uncertain.has(item) && !inSpool(item)).length;
        const toSetAside = rest.filter((item) => !uncertain.has(item) && (!inSpool(item) || options.unwrittenAtClose === 'dead-letter'));
        // The only copy a channel that exits has (or none at all): set aside whatever the file's bound.
        const outcomes = await Promise.all(
          toSetAside.map((item) =>
            setAside(
              item,
              { code: 'UNWRITTEN_AT_CLOSE', reason: 'the activity log closed while the store could not take entries' },
              { refused: false, bounded: false },
            ),
          ),
        );
        setAsideCount = outcomes.filter((outcome) => outcome === 'kept').length;
      }
      await router.settled();
      await store.close();
      // Lines being appended are finished, not cut: they are the only copy of their entries.
      await options.deadLetter?.close();
      counts.leftInSpool = spool?.close() ?? 0;
      if (setAsideCount + lost + counts.leftInSpool > 0)
        report({ kind: 'unwritten-at-close', setAside: setAsideCount, lost, leftInSpool: counts.leftInSpool });
    },
  };
}

const IN_FLIGHT_GRACE_MS = 1_000;
/** The part of the queue's bounds that entries taken over from the spool may fill. */
const ADOPTED_SHARE = 0.5;

/** Whether the spool holds the entry: its line was written (a disk error may have refused its turn's write). */
const inSpool = (item: QueuedEntry) => item.ticket !== undefined && !item.ticket.lost;
/** A batch's bytes when the store names no limit: what one INSERT carries at most. */
const DEFAULT_BATCH_BYTES = 16 * 1024 * 1024;
