import type { ActivityLog } from '@cotizaciones/core';
import { activityQueue, estimatedSize, type QueuedEntry } from './activity-queue.js';
import type { ActivitySpool } from './activity-spool.js';
import { activityWriter, type WritableStore } from './activity-writer.js';
import { batchSpans } from './batch-spans.js';
import { systemClock, type Clock } from './clock.js';
import type { DeadLetter } from './dead-letter-file.js';
import { deadLetterRouter, type SetAsideOutcome } from './dead-letter-router.js';
import type { Refusal } from './dead-letter-line.js';
import { entryRef, noCounts, problemReporter, type ActivityLogProblem, type ActivityLogStats } from './activity-log-stats.js';
import { spoolFeeder } from './spool-feeder.js';
import { spoolAppends } from './spool-appends.js';
import { closeActivityLog } from './close-protocol.js';

export type { ActivityLogProblem, ActivityLogStats, EntryRef } from './activity-log-stats.js';

export interface BufferedActivityLogOptions {
  /**
   * Entries held in memory at most, those waiting for their dead-letter append included; past it new
   * entries go to the dead-letter file (or are dropped without one).
   */
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
 * promise it returns settles once the spool's write of its batch is done (the answer waits for it, so
 * the entry is on disk before the answer is sent); a single writer ({@link activityWriter}) drains the
 * queue in batches on a later tick, and each entry written, or set aside, is acknowledged in the spool.
 *
 * A store that is unavailable is retried with backoff; meanwhile the queue holds `maxQueue` entries
 * and `maxQueueBytes`, and what does not fit goes to the dead-letter file, for the replay command.
 * Entries waiting for their dead-letter append count in the same bounds; when they alone fill them,
 * an entry past the queue's bound that the spool holds is left there for the next start.
 * Entries a stopped process left in the spool are forwarded each once (looked up by request id), as
 * half the queue has room: the others wait in the spool, not in the dead-letter file.
 */
export function bufferedActivityLog(store: BoundedStore, options: BufferedActivityLogOptions = {}): BufferedActivityLog {
  const maxQueue = options.maxQueue ?? 10_000;
  const maxQueueBytes = options.maxQueueBytes ?? 64 * 1024 * 1024;
  const defaultBatchBytes = options.maxBatchBytes ?? DEFAULT_BATCH_BYTES;
  const clock = options.clock ?? systemClock;
  const { spool, deadLetter } = options;
  const beforeWrite = options.beforeWrite ?? (() => undefined);
  const spans = options.traced ? batchSpans() : undefined;
  const reporter = problemReporter(options.onProblem, clock);
  const counts = noCounts();

  const queue = activityQueue(maxQueue, maxQueueBytes);
  const router = deadLetterRouter({
    deadLetter,
    clock,
    stderr: options.stderr,
    onFailed: (error, entry, failed) => reporter.report({ kind: 'dead-letter-failed', error, entry: entryRef(entry), failed }),
    onFull: (dropped) => reporter.report({ kind: 'dead-letter-full', dropped }),
  });
  const feeder = spoolFeeder(spool, queue);
  const appends = spoolAppends(spool, counts, reporter);
  let closing = false;

  const acknowledge = (items: readonly QueuedEntry[]) => {
    const tickets = items.flatMap((item) => (item.ticket ? [item.ticket] : []));
    if (tickets.length > 0) spool?.acknowledge(tickets);
  };
  /** Sets an entry aside; once it is out of our hands (kept, dropped at the bound, or logged) the spool lets it go. */
  const setAside = (item: QueuedEntry, refusal: Refusal, how: { refused: boolean; bounded: boolean }): Promise<SetAsideOutcome> => {
    beforeWrite();
    const release = queue.holdWhileSetAside(item.bytes);
    return router.setAside(item.entry, refusal, how).then((outcome) => {
      release();
      acknowledge([item]);
      return outcome;
    });
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
      feeder.feed();
    },
    onRefused(item, error) {
      reporter.report({ kind: 'refused', error, entry: entryRef(item.entry) });
      void setAside(item, { code: error.code, reason: error.message }, { refused: true, bounded: true });
      feeder.feed();
    },
    onUnwritable(item, error) {
      reporter.report({ kind: 'unwritable', error, entry: entryRef(item.entry) });
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
      const reason = `not written alone while the entries behind it were: ${error instanceof Error ? error.message : String(error)}`;
      void setAside(item, { code, reason }, { refused: true, bounded: true });
      feeder.feed();
    },
    onFailed(error, attempt) {
      counts.retried += 1;
      reporter.report({ kind: 'write-failed', error, attempt, queued: queue.length });
    },
  });

  /** Queues an entry, or — past the queue's bound — sets it aside (the store is not keeping up). */
  const enqueue = (item: QueuedEntry) => {
    if (!queue.full(item.bytes)) {
      queue.push(item);
      writer.wake();
      return;
    }
    // The entries waiting for the dead-letter file alone fill the bound (it falls behind): one the
    // spool holds stays there for the next start (counted at the close, in leftInSpool), not in memory.
    if (deadLetter && queue.setAsideFull(item.bytes) && item.ticket && !item.ticket.lost) return;
    if (deadLetter) {
      void setAside(
        item,
        { code: 'QUEUE_FULL', reason: 'the activity log queue was full while the store could not take entries' },
        { refused: false, bounded: true },
      );
      reporter.reportEvery(1_000, () => ({ kind: 'spilled', spilled: router.counts.spilled + 1 }), 'spilled');
      return;
    }
    counts.dropped += 1;
    acknowledge([item]);
    reporter.reportEvery(1_000, () => ({ kind: 'dropped', dropped: counts.dropped }), 'dropped');
  };

  if (feeder.adopted > 0) {
    counts.adopted = feeder.adopted;
    reporter.report({ kind: 'adopted', adopted: feeder.adopted, unreadable: spool?.unreadable ?? 0 });
    feeder.feed();
    writer.wake();
  }

  const flush = async () => {
    await writer.idle();
    await router.settled();
  };

  return {
    record(entry) {
      spans?.recorded(entry);
      const spooled = closing ? { ticket: undefined, bytes: 0, written: undefined } : appends.append(entry);
      enqueue({ entry, bytes: spooled.bytes || estimatedSize(entry), ticket: spooled.ticket, maybeStored: false });
      return spooled.written;
    },
    flush,
    // Entries taken over that still wait in the spool are waiting to be written too.
    stats: () => ({
      ...counts,
      ...router.counts,
      queued: queue.length + feeder.waiting(),
      spoolBytes: spool?.bytes() ?? 0,
      spoolMaxBytes: spool?.maxBytes ?? 0,
      deadLetterMaxBytes: deadLetter?.maxBytes ?? 0,
    }),
    oldestPendingMs() {
      const oldest = Math.min(queue.oldestCreatedAt() ?? Infinity, feeder.oldestWaiting());
      return oldest === Infinity ? 0 : Math.max(0, clock.now() - oldest);
    },
    deadLetterBytes: () => deadLetter?.size() ?? Promise.resolve(0),
    close: (timeoutMs = 10_000) =>
      closeActivityLog(
        {
          writer,
          queue,
          store,
          deadLetter,
          spool,
          clock,
          unwrittenAtClose: options.unwrittenAtClose ?? 'spool',
          counts,
          reporter,
          flush,
          setAsideSettled: () => router.settled(),
          setAside,
          stopTakingIn() {
            closing = true;
            feeder.stop();
          },
        },
        timeoutMs,
      ),
  };
}

/** A batch's bytes when the store names no limit: what one INSERT carries at most. */
const DEFAULT_BATCH_BYTES = 16 * 1024 * 1024;
