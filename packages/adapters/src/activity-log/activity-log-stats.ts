import type { ActivityEntry } from '@cotizaciones/core';
import type { ActivityStoreError } from './activity-store-error.js';
import type { Clock } from './clock.js';

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

/** The counts the activity log keeps itself (the others come from the dead-letter router and the spool). */
export interface LogCounts {
  written: number;
  retried: number;
  dropped: number;
  spooled: number;
  spoolSkipped: number;
  adopted: number;
  adoptedFound: number;
  leftInSpool: number;
}

export const noCounts = (): LogCounts => ({
  written: 0,
  retried: 0,
  dropped: 0,
  spooled: 0,
  spoolSkipped: 0,
  adopted: 0,
  adoptedFound: 0,
  leftInSpool: 0,
});

/** The entry's identifying fields, for the server log (its values stay in the dead-letter file). */
export interface EntryRef {
  readonly requestId: string | undefined;
  readonly eventKey: string;
  readonly entityId: string;
}

export const entryRef = (entry: ActivityEntry): EntryRef => ({
  requestId: entry.requestId,
  eventKey: entry.eventKey,
  entityId: entry.entityId.toString(),
});

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

export interface ProblemReporter {
  /** Tells the reporter; one that throws never stops the writer. */
  report(problem: ActivityLogProblem): void;
  /** Tells it at most once per `intervalMs` of its `kind`, while the problem goes on. */
  reportEvery(intervalMs: number, problem: () => ActivityLogProblem, kind: ActivityLogProblem['kind']): void;
}

export function problemReporter(onProblem: ((problem: ActivityLogProblem) => void) | undefined, clock: Clock): ProblemReporter {
  const lastReported = new Map<string, number>();
  const report = (problem: ActivityLogProblem) => {
    try {
      onProblem?.(problem);
    } catch {
      // A failing reporter must not stop the writer.
    }
  };
  return {
    report,
    reportEvery(intervalMs, problem, kind) {
      const now = clock.now();
      if (now - (lastReported.get(kind) ?? -Infinity) < intervalMs) return;
      lastReported.set(kind, now);
      report(problem());
    },
  };
}
