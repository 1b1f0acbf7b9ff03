import type { ActivityEntry, ActivityLog } from '@cotizaciones/core';
import type { ActivityLogStats, ReadableActivityLogStore } from '@cotizaciones/adapters';
import type { ChangeLine } from './change-line.js';
import type { Journal } from './journal.js';

/** The activity log as the tool uses it: entries recorded, counts of what became of them. */
export interface CountedActivityLog extends ActivityLog {
  stats(): ActivityLogStats;
}

export interface AuditMarks {
  /** The log the use cases record into: each entry is kept until its line is journaled with it. */
  readonly activityLog: ActivityLog;
  /** An applied line: journaled with the audit entry its use case recorded, if any. */
  applied(line: ChangeLine): void;
  /**
   * Writes again what an earlier, killed run left pending: each entry the store does not hold. A
   * store that cannot be asked leaves them pending (no mark is written this run), never doubled.
   */
  recover(store: ReadableActivityLogStore): Promise<{ readonly rewritten: number; readonly found: number } | { readonly error: unknown }>;
  /** Marks the journal's lines whose entries have left the log's queue (written or set aside). */
  checkpoint(): void;
  /** Once the log is closed: every line is audited, unless an entry was lost. */
  finish(): void;
}

/** Entries that left the queue without being written or set aside. */
const lost = (s: ActivityLogStats) => s.dropped + s.deadLetterFailed + s.deadLetterDropped;
/** Entries that left the queue, one way or another, in the order they were recorded. */
const settled = (s: ActivityLogStats) => s.written + s.deadLettered + s.spilled + lost(s);

/**
 * Keeps the journal's `# audited` marks. The use cases record an entry before their line's answer
 * comes, so a line journaled after `n` entries were recorded is audited once `n` have left the
 * log's queue (written in order, or set aside). A killed run leaves the lines after the last mark
 * pending, with their entries: the rerun writes those the store does not have.
 */
export function auditMarks(log: CountedActivityLog, journal: Journal, requestIdOf: (line: ChangeLine) => string): AuditMarks {
  const byRequestId = new Map<string, ActivityEntry>();
  const marks: Array<{ lines: number; entries: number }> = [];
  let recordedEntries = 0;
  let unknown = false;
  return {
    activityLog: {
      record(entry) {
        recordedEntries += 1;
        if (entry.requestId !== undefined) byRequestId.set(entry.requestId, entry);
        return log.record(entry);
      },
      flush: () => log.flush(),
    },
    applied(line) {
      const id = requestIdOf(line);
      const entry = byRequestId.get(id);
      byRequestId.delete(id);
      journal.record(line, entry);
      marks.push({ lines: journal.recorded, entries: recordedEntries });
    },
    async recover(store) {
      const pending = journal.pending;
      if (pending.length === 0) return { rewritten: 0, found: 0 };
      let stored: Set<string>;
      try {
        stored = await store.storedRequestIds(pending.flatMap((entry) => (entry.requestId === undefined ? [] : [entry.requestId])));
      } catch (error) {
        unknown = true;
        return { error };
      }
      let rewritten = 0;
      for (const entry of pending) {
        if (entry.requestId !== undefined && stored.has(entry.requestId)) continue;
        recordedEntries += 1;
        rewritten += 1;
        // Nothing answers on it: the close writes the spool's batch at the latest.
        void log.record(entry);
      }
      marks.push({ lines: journal.recorded, entries: recordedEntries });
      return { rewritten, found: pending.length - rewritten };
    },
    checkpoint() {
      const stats = log.stats();
      if (unknown || lost(stats) > 0) return;
      const done = settled(stats);
      let lines: number | undefined;
      while (marks.length > 0 && marks[0]!.entries <= done) lines = marks.shift()!.lines;
      if (lines !== undefined) journal.audited(lines);
    },
    finish() {
      // Every entry accounted for: a batch whose write was cut at the close is neither, and stays pending.
      const stats = log.stats();
      if (!unknown && lost(stats) === 0 && settled(stats) === recordedEntries) journal.audited(journal.recorded);
    },
  };
}
