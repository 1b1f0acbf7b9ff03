import type { ActivityEntry } from '@cotizaciones/core';
import type { ActivityLogStore } from './activity-log-store.js';
import { isRefusal, type ActivityStoreError } from './activity-store-error.js';
import type { ActivityQueue, QueuedEntry } from './activity-queue.js';
import type { BatchSpans } from './batch-spans.js';
import type { Clock } from './clock.js';
import { initialState, nextBatch, transition, type MachineSettings, type WriterEvent, type WriterState } from './writer-machine.js';

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
  /** The store refused this entry for what it holds (alone, or by its `refusalOf` before any write): to be set aside. */
  readonly onRefused: (item: QueuedEntry, error: ActivityStoreError) => void;
  /** This entry fails alone while the store answers and writes other entries: to be set aside, with the failure. */
  readonly onUnwritable: (item: QueuedEntry, error: unknown) => void;
  /** A write failed (the store unavailable): reported, retried. */
  readonly onFailed: (error: unknown, attempt: number) => void;
}

/**
 * The single writer that drains the queue into the store, in batches bounded in entries and bytes.
 * What it does after each write is decided by {@link transition} (writer-machine.ts): this is the
 * I/O around it.
 *
 * - An entry the store's `refusalOf` says it cannot take is set aside before any write.
 * - A batch the store refuses is split in halves until the refused entry is found alone; it is handed
 *   to `onRefused`, every other entry written, and batches stay small while refusals go on.
 * - A batch that fails as unavailable is tried again: at once while the store answers a ping (the
 *   batch, not the store, is the trouble: a statement past the server's packet limit fails as a lost
 *   connection), after an exponential backoff while it does not (at most 1 s apart after ENOSPC).
 *   After two failures in a row a batch of several entries is split the same way; an entry that
 *   fails alone twice in a row, the store answering each time, is held back: the entries behind it go
 *   on. It is tried again alone right after the store has written others, and only a failure then
 *   goes to `onUnwritable`: a store that answers pings but takes nothing (its table gone) sets
 *   nothing aside; the held-back entries are written once it is back.
 * - Entries taken over from another process's spool are first looked up in the store by request id,
 *   before every try until they are written.
 */
export function activityWriter(options: WriterOptions) {
  const { store, queue, clock, lingerMs, spans, beforeWrite } = options;
  const settings: MachineSettings = { maxBatch: options.maxBatch, retryMinMs: options.retryMinMs, retryMaxMs: options.retryMaxMs };
  let state: WriterState = initialState(settings);
  let running = false;
  let released = false;
  let writing: Promise<number> | undefined;
  let inFlight: readonly QueuedEntry[] = [];
  let idle: Array<() => void> = [];
  // Batches written so far: a held-back entry is judged only after the store has written others since it stepped out.
  let batchesWritten = 0;
  const stopped = () => state.name === 'stopped';
  const othersWrittenSince = (item: QueuedEntry) => batchesWritten > (item.heldBackAt ?? Infinity);

  const write = (entries: readonly ActivityEntry[]) => (spans ? spans.write(entries, () => store.write(entries)) : store.write(entries));

  /** The head's next `entries`, after setting aside at once those the store says it cannot take. */
  function headBatch(entries: number): QueuedEntry[] {
    for (;;) {
      const batch = queue.head(entries, options.maxBatchBytes());
      const refused = store.refusalOf
        ? batch.flatMap((item) => {
            const error = store.refusalOf!(item.entry);
            return error ? [{ item, error }] : [];
          })
        : [];
      if (refused.length === 0) return batch;
      queue.remove(refused.map(({ item }) => item));
      for (const { item, error } of refused) options.onRefused(item, error);
    }
  }

  /** The next batch: a held-back entry whose turn it is, else the head as the machine plans it. */
  async function takeBatch(): Promise<{ batch: QueuedEntry[]; heldBack: boolean } | undefined> {
    const ready = queue.heldBack(othersWrittenSince);
    if (ready) return { batch: [ready], heldBack: true };
    const plan = nextBatch(state);
    let batch = headBatch(plan.entries);
    if (plan.linger && batch.length > 0 && batch.length < plan.entries && lingerMs > 0) {
      await clock.sleep(lingerMs);
      batch = headBatch(plan.entries);
    }
    if (batch.length > 0) return { batch, heldBack: false };
    // Only held-back entries left, the store having written nothing since: tried again (after a backoff).
    const any = queue.heldBack(() => true);
    return any ? { batch: [any], heldBack: true } : undefined;
  }

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

  /** Tries the batch; the event it makes, or undefined once its entries are the closer's. */
  async function tryBatch(batch: readonly QueuedEntry[], heldBack: boolean): Promise<{ event: WriterEvent; error?: unknown } | undefined> {
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
      if (released) return undefined;
      queue.remove(batch);
      options.onWritten(batch, stored);
      if (!heldBack) batchesWritten += 1;
      return { event: { kind: 'written', entries: batch.length, heldBack } };
    } catch (error) {
      writing = undefined;
      inFlight = [];
      if (released) return undefined;
      if (isRefusal(error)) return { event: { kind: 'refused', entries: batch.length }, error };
      options.onFailed(error, waitsSoFar(state) + 1);
      // A full disk is the store's, whatever answers: never the entry's fault.
      const diskFull = isDiskFull(error);
      const answered = !diskFull && (await answers());
      if (released) return undefined;
      const event: WriterEvent = {
        kind: 'failed',
        entries: batch.length,
        answers: answered,
        diskFull,
        heldBack,
        othersWrittenSince: heldBack && othersWrittenSince(batch[0]!),
        othersWaiting: queue.head(1, Infinity).length > 0,
      };
      return { event, error };
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !stopped()) {
      const taken = await takeBatch();
      // A stop while the batch lingered: it is not tried.
      if (stopped()) break;
      if (!taken) continue;
      const { batch, heldBack } = taken;
      const outcome = await tryBatch(batch, heldBack);
      if (!outcome) return;
      const next = transition(state, outcome.event, settings);
      state = next.state;
      const [alone] = batch;
      switch (next.action.kind) {
        case 'set-aside':
          queue.remove(batch);
          if (next.action.as === 'refused') options.onRefused(alone!, outcome.error as ActivityStoreError);
          else options.onUnwritable(alone!, outcome.error);
          break;
        case 'hold-back':
          alone!.heldBackAt = batchesWritten;
          break;
        case 'wait':
          await clock.sleep(next.action.ms);
          break;
        case 'next':
        case 'halt':
          break;
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
      if (running || stopped()) return;
      running = true;
      setImmediate(() => void drain());
    },
    /** Resolves once the queue is empty (or the writer stopped). */
    idle(): Promise<void> {
      return running ? new Promise<void>((resolve) => idle.push(resolve)) : Promise.resolve();
    },
    /** No new batch starts. */
    stop(): void {
      state = transition(state, { kind: 'stop' }, settings).state;
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
    releaseInFlight(): void {
      released = true;
    },
    /** Its state, by name (for tests and the curious). */
    state: () => state,
  };
}

export type ActivityWriter = ReturnType<typeof activityWriter>;

const waitsSoFar = (state: WriterState) => (state.name === 'batch-failing' || state.name === 'store-unreachable' ? state.attempt : 0);

function isDiskFull(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'ENOSPC' || code === 'EDQUOT' || code.startsWith('SQLITE_FULL');
}
