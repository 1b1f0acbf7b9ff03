import type { ActivityEntry } from '@cotizaciones/core';
import type { ActivityStoreError } from './activity-store-error.js';
import { entryFit, type EntryFit } from './entry-fit.js';
import type { TableLimits } from './table-limits.js';

/** The table's limits as last read, and when they are read again. */
export interface CurrentTableLimits extends EntryFit {
  /** After a failed write: a column error (too long, a charset, an unknown column) means the table changed. */
  writeFailed(error: unknown): void;
  /** Resolves once no read is under way (before the connection closes). */
  settled(): Promise<void>;
}

export interface CurrentTableLimitsOptions {
  /** Whether a driver error says a column no longer is what the limits say. */
  readonly isColumnError: (error: unknown) => boolean;
  /**
   * Limits older than this are read again when they refuse an entry: a widened column tells
   * nothing otherwise, since the entries it now takes are no longer written to find out.
   */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/**
 * Reads the limits now (at connect) and again, in the background and one read at a time, after a
 * write fails for a column reason (the table was narrowed or changed) or when limits older than
 * `maxAgeMs` refuse an entry (it may have been widened). A failed read keeps the limits it had.
 */
export async function currentTableLimits(
  read: () => Promise<TableLimits>,
  options: CurrentTableLimitsOptions,
): Promise<CurrentTableLimits> {
  const now = options.now ?? Date.now;
  let fit = entryFit(await read());
  let readAt = now();
  let reading: Promise<void> | undefined;

  const readAgain = () => {
    reading ??= (async () => {
      const startedAt = now();
      try {
        fit = entryFit(await read());
        readAt = startedAt;
      } catch {
        // Kept as they were: the next column error or aged refusal tries again.
      } finally {
        reading = undefined;
      }
    })();
  };

  return {
    refusalOf(entry: ActivityEntry): ActivityStoreError | undefined {
      const refusal = fit.refusalOf(entry);
      if (refusal && now() - readAt >= options.maxAgeMs) readAgain();
      return refusal;
    },
    userAgent: (value) => fit.userAgent(value),
    writeFailed(error) {
      if (options.isColumnError(error)) readAgain();
    },
    settled: async () => {
      await reading;
    },
  };
}
