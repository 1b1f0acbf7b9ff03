/**
 * The activity writer's decisions, as a pure machine: a state, an event (what the last write did),
 * the next state and what to do now. No I/O here: {@link activityWriter} carries the actions out.
 */

/** The states between two tries that the store answered, or that succeeded. */
export type SteadyState =
  /**
   * Batches of at most `batchLimit` entries. The limit doubles after each clean write, up to the
   * maximum, and drops to one after a refused entry: while refusals go on each costs one write.
   */
  | { readonly name: 'writing'; readonly batchLimit: number }
  /**
   * A batch failed: the trouble is among the first `among` entries (at the head of the queue), and
   * batches halve within them until it is found alone; then writing resumes at `batchLimit`.
   */
  | { readonly name: 'isolating'; readonly among: number; readonly batchLimit: number };

/** Tries of the head batch that failed as unavailable, in a row. */
interface Retry {
  /** The state the next try is planned by, and that a success or a refusal moves on from. */
  readonly resume: SteadyState;
  /** Failed tries of the head batch, for any reason. */
  readonly failures: number;
  /** Of those, how many in a row while the store answered a ping (the batch, not the store, the trouble). */
  readonly failuresWhileAnswering: number;
  /** Waits so far: the next one is twice as long. */
  readonly attempt: number;
}

export type WriterState =
  | SteadyState
  /** The last try failed while the store answered a ping: tried again at once. */
  | ({ readonly name: 'batch-failing' } & Retry)
  /** The last try failed and the store did not answer (or its disk is full): tried again after a backoff. */
  | ({ readonly name: 'store-unreachable' } & Retry)
  /** No new batch starts. */
  | { readonly name: 'stopped' };

export type WriterEvent =
  /** The batch (`entries` long) is in the store; `heldBack`: it was one entry held back earlier. */
  | { readonly kind: 'written'; readonly entries: number; readonly heldBack: boolean }
  /** The store refused the batch for what it holds. */
  | { readonly kind: 'refused'; readonly entries: number }
  /**
   * The batch failed as unavailable. `answers`: the store answered a ping after it (never after a full
   * disk). `heldBack`: the batch was one entry held back earlier; `othersWrittenSince`: the store has
   * written other batches since it was held back; `othersWaiting`: entries not held back wait.
   */
  | {
      readonly kind: 'failed';
      readonly entries: number;
      readonly answers: boolean;
      readonly diskFull: boolean;
      readonly heldBack: boolean;
      readonly othersWrittenSince: boolean;
      readonly othersWaiting: boolean;
    }
  | { readonly kind: 'stop' };

export type WriterAction =
  /** Take the next batch now. */
  | { readonly kind: 'next' }
  /** Wait this long, then take the next batch. */
  | { readonly kind: 'wait'; readonly ms: number }
  /** The batch's one entry leaves the queue for the dead-letter file: refused, or unwritable alone. */
  | { readonly kind: 'set-aside'; readonly as: 'refused' | 'unwritable' }
  /** The batch's one entry steps out of the batches, to be tried alone after the store writes others. */
  | { readonly kind: 'hold-back' }
  /** Do nothing more. */
  | { readonly kind: 'halt' };

export interface MachineSettings {
  /** Entries per batch at most. */
  readonly maxBatch: number;
  readonly retryMinMs: number;
  readonly retryMaxMs: number;
}

/** After ENOSPC (or SQLite's SQLITE_FULL), tries at most this far apart: writing resumes soon after space returns. */
export const DISK_FULL_RETRY_MS = 1_000;
/** A batch of several entries that fails this many times in a row is split; one entry, held back. */
export const FAILURES_BEFORE_SPLIT = 2;

export const initialState = (settings: MachineSettings): WriterState => ({ name: 'writing', batchLimit: settings.maxBatch });

/** How the next batch is taken: at most `entries`; `linger`: a partial batch may wait for more. */
export function nextBatch(state: WriterState): { entries: number; linger: boolean } {
  const steady = steadyOf(state);
  if (!steady) return { entries: 0, linger: false };
  if (steady.name === 'isolating') return { entries: Math.ceil(steady.among / 2), linger: false };
  return { entries: steady.batchLimit, linger: state.name === 'writing' };
}

/** The one place the writer's state changes. */
export function transition(
  state: WriterState,
  event: WriterEvent,
  settings: MachineSettings,
): { state: WriterState; action: WriterAction } {
  if (event.kind === 'stop' || state.name === 'stopped') return { state: { name: 'stopped' }, action: { kind: 'halt' } };
  const steady = steadyOf(state)!;
  const retry: Retry =
    state.name === 'batch-failing' || state.name === 'store-unreachable'
      ? state
      : { resume: steady, failures: 0, failuresWhileAnswering: 0, attempt: 0 };

  switch (event.kind) {
    case 'written':
      if (event.heldBack) return { state: steady, action: { kind: 'next' } };
      return { state: afterWritten(steady, event.entries, settings), action: { kind: 'next' } };

    case 'refused':
      if (event.entries > 1)
        return { state: { name: 'isolating', among: event.entries, batchLimit: steady.batchLimit }, action: { kind: 'next' } };
      // Found alone: the stretch of refusals may go on, so batches stay at one entry until writes are clean.
      return { state: { name: 'writing', batchLimit: 1 }, action: { kind: 'set-aside', as: 'refused' } };

    case 'failed': {
      const answered = event.answers && !event.diskFull;
      const wait = (attempt: number): WriterAction => ({ kind: 'wait', ms: retryDelay(attempt, event.diskFull, settings) });
      if (event.heldBack) {
        // Tried alone again, after the store wrote others, and still failing while it answers: it is the entry.
        if (answered && event.othersWrittenSince) return { state: steady, action: { kind: 'set-aside', as: 'unwritable' } };
        if (answered && event.othersWaiting) return { state: retrying(answered, retry), action: { kind: 'next' } };
        const attempt = retry.attempt + 1;
        return { state: retrying(answered, { ...retry, attempt }), action: wait(attempt) };
      }
      const failures = retry.failures + 1;
      const failuresWhileAnswering = answered ? retry.failuresWhileAnswering + 1 : 0;
      if (event.entries > 1 && failures >= FAILURES_BEFORE_SPLIT) {
        const split: Retry = {
          resume: { name: 'isolating', among: event.entries, batchLimit: steady.batchLimit },
          failures: 0,
          failuresWhileAnswering: 0,
          attempt: retry.attempt,
        };
        if (answered) return { state: retrying(true, split), action: { kind: 'next' } };
        return { state: retrying(false, { ...split, attempt: split.attempt + 1 }), action: wait(split.attempt + 1) };
      }
      if (event.entries === 1 && failuresWhileAnswering >= FAILURES_BEFORE_SPLIT)
        return { state: afterHeldBack(steady), action: { kind: 'hold-back' } };
      const next = { ...retry, failures, failuresWhileAnswering };
      // The batch, not the store, is the trouble: tried again without waiting.
      if (answered) return { state: retrying(true, next), action: { kind: 'next' } };
      return { state: retrying(false, { ...next, attempt: next.attempt + 1 }), action: wait(next.attempt + 1) };
    }
  }
}

/** The steady state a state plans its next batch by (none once stopped). */
function steadyOf(state: WriterState): SteadyState | undefined {
  if (state.name === 'stopped') return undefined;
  return state.name === 'batch-failing' || state.name === 'store-unreachable' ? state.resume : state;
}

function retrying(answered: boolean, next: Retry): WriterState {
  return answered ? { name: 'batch-failing', ...next } : { name: 'store-unreachable', ...next };
}

function afterWritten(steady: SteadyState, entries: number, settings: MachineSettings): SteadyState {
  if (steady.name === 'isolating') {
    const among = steady.among - entries;
    return among > 0 ? { ...steady, among } : { name: 'writing', batchLimit: steady.batchLimit };
  }
  // Grows only when batches were full: a quiet stream of single entries keeps it where it is.
  return { name: 'writing', batchLimit: Math.min(settings.maxBatch, Math.max(steady.batchLimit, entries * 2)) };
}

/** An entry stepped out of the head: the trouble is among one entry fewer. */
function afterHeldBack(steady: SteadyState): SteadyState {
  if (steady.name !== 'isolating') return steady;
  return steady.among > 1 ? { ...steady, among: steady.among - 1 } : { name: 'writing', batchLimit: steady.batchLimit };
}

function retryDelay(attempt: number, diskFull: boolean, settings: MachineSettings): number {
  const delay = Math.min(settings.retryMaxMs, settings.retryMinMs * 2 ** (attempt - 1));
  return diskFull ? Math.min(delay, DISK_FULL_RETRY_MS) : delay;
}
