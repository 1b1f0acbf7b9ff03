import type { ActivityEntry } from '@cotizaciones/core';
import type { SpoolTicket } from './activity-spool.js';

/** An entry waiting for the store. */
export interface QueuedEntry {
  readonly entry: ActivityEntry;
  /** Its size as the store's batch bound counts it (its spool line, or an estimate). */
  readonly bytes: number;
  /** Where the spool holds it; undefined when the spool could not take it (memory is then its only copy). */
  readonly ticket: SpoolTicket | undefined;
  /** Taken over from another process's spool: the store may hold it already, and is asked first. */
  readonly maybeStored: boolean;
  /**
   * Set when the entry failed alone while the store answered: it steps out of the batches (the writer's
   * count of written batches then), so the entries behind it go on.
   */
  heldBackAt?: number;
}

/**
 * The entries waiting for the store, oldest first, bounded in count and bytes: the in-memory cache
 * of what the spool holds (the spool is the copy that survives the process).
 */
export interface ActivityQueue {
  readonly length: number;
  /** Whether one more entry of `bytes` would pass a bound, or `share` of it (0 to 1), entries being set aside counted. */
  full(bytes: number, share?: number): boolean;
  /**
   * Counts an entry that left for the dead-letter file in the bounds until the returned release is
   * called (its append done): entries waiting for the file take memory as queued ones do.
   */
  holdWhileSetAside(bytes: number): () => void;
  /** Whether the entries waiting to be set aside alone fill a bound, one more of `bytes` with them. */
  setAsideFull(bytes: number): boolean;
  /** The bytes of the entries waiting to be set aside. */
  setAsideBytes(): number;
  push(item: QueuedEntry): void;
  /** The first entries not held back, at most `maxEntries` and `maxBytes` (always at least one, if any), from index `from`. */
  head(maxEntries: number, maxBytes: number, from?: number): QueuedEntry[];
  /** The oldest held-back entry for which `ready` holds. */
  heldBack(ready: (item: QueuedEntry) => boolean): QueuedEntry | undefined;
  /** Removes these entries (by identity). */
  remove(items: readonly QueuedEntry[]): void;
  /** Removes and returns everything. */
  takeAll(): QueuedEntry[];
  /** The `created_at` (ms) of the oldest entry queued, held back or in a write under way included; undefined when empty. */
  oldestCreatedAt(): number | undefined;
}

export function activityQueue(maxEntries: number, maxBytes: number): ActivityQueue {
  let items: QueuedEntry[] = [];
  let bytes = 0;
  const settingAside = { entries: 0, bytes: 0 };
  // Entries taken over from the spool (older than any recorded since the start) join behind new ones.
  let takenOver = 0;
  return {
    get length() {
      return items.length;
    },
    full: (size, share = 1) =>
      items.length + settingAside.entries >= maxEntries * share || bytes + settingAside.bytes + size > maxBytes * share,
    holdWhileSetAside(size) {
      settingAside.entries += 1;
      settingAside.bytes += size;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        settingAside.entries -= 1;
        settingAside.bytes -= size;
      };
    },
    setAsideFull: (size) => settingAside.entries >= maxEntries || settingAside.bytes + size > maxBytes,
    setAsideBytes: () => settingAside.bytes,
    push(item) {
      items.push(item);
      bytes += item.bytes;
      if (item.maybeStored) takenOver += 1;
    },
    head(maxCount, maxSize, from = 0) {
      const batch: QueuedEntry[] = [];
      let size = 0;
      for (let i = from; i < items.length && batch.length < maxCount; i += 1) {
        const item = items[i]!;
        if (item.heldBackAt !== undefined) continue;
        if (batch.length > 0 && size + item.bytes > maxSize) break;
        batch.push(item);
        size += item.bytes;
      }
      return batch;
    },
    heldBack: (ready) => items.find((item) => item.heldBackAt !== undefined && ready(item)),
    remove(removed) {
      if (removed.length === 0) return;
      // Usually the head, in order: the common case costs one splice.
      if (removed.every((item, i) => items[i] === item)) {
        items.splice(0, removed.length);
      } else {
        const gone = new Set(removed);
        items = items.filter((item) => !gone.has(item));
      }
      for (const item of removed) {
        bytes -= item.bytes;
        if (item.maybeStored) takenOver -= 1;
      }
    },
    takeAll() {
      const all = items;
      items = [];
      bytes = 0;
      takenOver = 0;
      return all;
    },
    oldestCreatedAt() {
      // Recorded entries arrive in the order they were created: the head is the oldest of them. Only
      // while entries taken over wait among them (a start after a backlog) is the whole queue looked at.
      if (takenOver === 0) return items[0]?.entry.createdAt.getTime();
      let oldest = Infinity;
      for (const item of items) oldest = Math.min(oldest, item.entry.createdAt.getTime());
      return oldest;
    },
  };
}

/**
 * Roughly what an entry holds, in bytes: what the queue's bound counts for an entry the spool did not
 * take. Cheap (no serialising): the use cases put only strings in `details`; anything else counts as JSON.
 */
export function estimatedSize(entry: ActivityEntry): number {
  let size = 256 + entry.description.length + (entry.userAgent?.length ?? 0) + entry.userId.length;
  for (const value of Object.values(entry.details ?? {}))
    size += 16 + (typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0));
  return size;
}
