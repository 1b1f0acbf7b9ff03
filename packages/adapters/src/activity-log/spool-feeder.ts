import type { ActivityQueue } from './activity-queue.js';
import type { ActivitySpool } from './activity-spool.js';
import { entryLine } from './spool-segment.js';

/** The part of the queue's bounds that entries taken over from the spool may fill. */
const TAKEN_OVER_SHARE = 0.5;

/**
 * Feeds the entries taken over from a stopped process's spool into the queue, while it is less than
 * half full; the others wait in the spool, never set aside for want of room (a stop leaves them there
 * for the next start). The other half is for new entries, which are set aside once the whole queue is full.
 */
export function spoolFeeder(spool: ActivitySpool | undefined, queue: ActivityQueue) {
  const adopted = spool?.adopted ?? [];
  let next = 0;
  let stopped = false;
  // The oldest created_at from each taken-over entry on, worked out once as they are read: segments
  // of several processes overlap in time, so the next entry to join the queue is not always the oldest.
  const oldestFrom = new Float64Array(adopted.length + 1);
  oldestFrom[adopted.length] = Infinity;
  for (let i = adopted.length - 1; i >= 0; i -= 1) oldestFrom[i] = Math.min(adopted[i]!.entry.createdAt.getTime(), oldestFrom[i + 1]!);

  return {
    /** How many were taken over at start. */
    adopted: adopted.length,
    /** Moves taken-over entries into the queue while it has room for them. */
    feed(): void {
      while (next < adopted.length && !stopped) {
        const { entry, ticket } = adopted[next]!;
        const bytes = Buffer.byteLength(entryLine(entry));
        if (queue.length > 0 && queue.full(bytes, TAKEN_OVER_SHARE)) return;
        queue.push({ entry, bytes, ticket, maybeStored: true });
        next += 1;
      }
    },
    /** Entries still waiting in the spool for room in the queue. */
    waiting: () => adopted.length - next,
    /** The `created_at` (ms) of the oldest of those; Infinity when none waits. */
    oldestWaiting: () => oldestFrom[next]!,
    /** Feeds no more: the close leaves what still waits in the spool. */
    stop(): void {
      stopped = true;
    },
  };
}

export type SpoolFeeder = ReturnType<typeof spoolFeeder>;
