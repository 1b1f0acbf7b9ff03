import type { ActivityEntry, ActivityLog } from '@cotizaciones/core';
import type { ActivityLogStore } from './activity-log-store.js';

export interface ActivityLogStats {
  readonly written: number;
  /** Failed batch writes that were tried again. */
  readonly retried: number;
  /** Entries refused because the queue was full. */
  readonly dropped: number;
  readonly queued: number;
}

export type ActivityLogProblem =
  | { readonly kind: 'write-failed'; readonly error: unknown; readonly attempt: number; readonly queued: number }
  | { readonly kind: 'dropped'; readonly dropped: number }
  | { readonly kind: 'unwritten-at-close'; readonly lost: number };

export interface BufferedActivityLogOptions {
  /** Entries held in memory at most; past it new entries are dropped and counted. */
  readonly maxQueue?: number;
  /** Entries per INSERT. */
  readonly maxBatch?: number;
  /** How long a partial batch waits for more entries: fewer, larger INSERTs under load. */
  readonly lingerMs?: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** Told of every failed write and, at most once a second, of dropped entries: the server log. */
  readonly onProblem?: (problem: ActivityLogProblem) => void;
}

export interface BufferedActivityLog extends ActivityLog {
  stats(): ActivityLogStats;
  /** Writes what is queued (for at most `timeoutMs`), then closes the store. */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The activity log in front of a store: `record` only enqueues; a single
 * writer drains the queue in batches on a later tick (after `lingerMs`, so a
 * write never delays a response and batches fill up under load), and retries
 * with exponential backoff while the store fails.
 */
export function bufferedActivityLog(store: ActivityLogStore, options: BufferedActivityLogOptions = {}): BufferedActivityLog {
  const maxQueue = options.maxQueue ?? 10_000;
  const maxBatch = options.maxBatch ?? 500;
  const lingerMs = options.lingerMs ?? 20;
  const retryMinMs = options.retryMinMs ?? 100;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const report = (problem: ActivityLogProblem) => {
    try {
      options.onProblem?.(problem);
    } catch {
      // A failing reporter must not stop the writer.
    }
  };

  const queue: ActivityEntry[] = [];
  let draining = false;
  let closed = false;
  let idle: Array<() => void> = [];
  let written = 0;
  let retried = 0;
  let dropped = 0;
  let lastDropReport = 0;

  async function drain(): Promise<void> {
    let attempt = 0;
    while (queue.length > 0 && !closed) {
      if (queue.length < maxBatch && lingerMs > 0) await sleep(lingerMs);
      const batch = queue.slice(0, maxBatch);
      try {
        await store.write(batch);
        queue.splice(0, batch.length);
        written += batch.length;
        attempt = 0;
      } catch (error) {
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

  function flush(): Promise<void> {
    if (!draining) return Promise.resolve();
    return new Promise((resolve) => idle.push(resolve));
  }

  return {
    record(entry) {
      if (queue.length >= maxQueue) {
        dropped += 1;
        const now = Date.now();
        if (now - lastDropReport >= 1_000) {
          lastDropReport = now;
          report({ kind: 'dropped', dropped });
        }
        return;
      }
      queue.push(entry);
      if (!draining) {
        draining = true;
        setImmediate(() => void drain());
      }
    },
    flush,
    stats: () => ({ written, retried, dropped, queued: queue.length }),
    async close(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([flush(), deadline]);
      clearTimeout(timer);
      closed = true;
      if (queue.length > 0) report({ kind: 'unwritten-at-close', lost: queue.length });
      await store.close();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
