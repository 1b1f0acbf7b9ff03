import type { ActivityEntry } from '@cotizaciones/core';
import type { ReadableActivityLogStore } from './activity-log-store.js';
import { isRefusal } from './activity-store-error.js';
import { deadLetterLine } from './dead-letter-line.js';
import { entryCheckFailure } from './entry-checks.js';

/** What a replay did with each line it read. */
export interface ReplayResult {
  /** Entries now in the store. */
  readonly written: number;
  /** Entries the store already held (by request id): not written again. */
  readonly alreadyStored: number;
  /** Entries the store still refuses, kept (with the new reason). */
  readonly stillRefused: number;
  /** Entries that fail the service's own checks (client IP, request id, entity id), kept, never written. */
  readonly failedChecks: number;
  /** Lines that hold no entry, kept as they are for a person to look at. */
  readonly unreadable: number;
  /** Lines longer than a dead-letter line can be (64 KiB): never read whole, so neither written nor kept. */
  readonly oversized: number;
  /** Entries not tried because the replay stopped (store unavailable, interrupted), kept. */
  readonly notTried: number;
  /** Why the replay stopped early, if it did. */
  readonly stoppedBy?: string;
}

/** One line a replay reads: the entry it holds, a line that holds none, or the length of one too long to read. */
export type ReplayLine =
  | { readonly line: string; readonly entry: ActivityEntry }
  | { readonly line: string; readonly entry?: undefined }
  | { readonly oversizedBytes: number; readonly head: string };

/** The part of a store a replay uses. */
export type ReplayStore = Pick<ReadableActivityLogStore, 'write' | 'storedRequestIds'>;

/** How many entries are looked up in the store at once. */
const CHUNK = 200;

export const NOTHING_REPLAYED: ReplayResult = {
  written: 0,
  alreadyStored: 0,
  stillRefused: 0,
  failedChecks: 0,
  unreadable: 0,
  oversized: 0,
  notTried: 0,
};

/**
 * Writes the entries of `lines` to `store`, one at a time so one refused entry never holds back
 * another, after the service's own checks and skipping those the store already holds by request id
 * (asked a chunk at a time): a second replay, or one beside a spool that already forwarded an entry,
 * writes nothing twice. Every line not written (nor already stored, nor oversized) goes to `keep`, in
 * the file's form: a refused entry with its new reason. Holds one chunk of lines at a time.
 */
export async function replayLines(
  lines: AsyncIterable<ReplayLine>,
  store: ReplayStore,
  keep: (line: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<ReplayResult> {
  const counts = { ...NOTHING_REPLAYED };
  let stoppedBy: string | undefined;
  // Lines are handled a chunk at a time, in the file's order: one lookup in the store per chunk.
  let chunk: ReplayLine[] = [];

  const handleChunk = async () => {
    const pending = chunk.map((read) => ({ read, entry: checked(read) }));
    chunk = [];
    const ids = pending.flatMap(({ entry }) => (entry === undefined ? [] : [entry.requestId]));
    let stored = new Set<string>();
    if (stoppedBy === undefined && ids.length > 0) {
      try {
        stored = await store.storedRequestIds(ids);
      } catch (error) {
        stoppedBy = unavailable(error);
      }
    }
    for (const { read, entry } of pending) {
      if ('oversizedBytes' in read) {
        counts.oversized += 1;
        continue;
      }
      if (read.entry === undefined) {
        counts.unreadable += 1;
        await keep(read.line);
        continue;
      }
      if (entry === undefined) {
        counts.failedChecks += 1;
        await keep(read.line);
        continue;
      }
      if (stoppedBy === undefined && signal?.aborted) stoppedBy = 'interrupted';
      if (stoppedBy !== undefined) {
        counts.notTried += 1;
        await keep(read.line);
        continue;
      }
      if (stored.has(entry.requestId)) {
        counts.alreadyStored += 1;
        continue;
      }
      try {
        await store.write([entry]);
        counts.written += 1;
        // The same entry twice in one chunk (a line kept twice): the lookup above could not see it.
        stored.add(entry.requestId);
      } catch (error) {
        if (isRefusal(error)) {
          counts.stillRefused += 1;
          await keep(deadLetterLine(entry, { code: error.code, reason: error.message }, new Date()).trimEnd());
        } else {
          stoppedBy = unavailable(error);
          counts.notTried += 1;
          await keep(read.line);
        }
      }
    }
  };

  for await (const read of lines) {
    chunk.push(read);
    if (chunk.length >= CHUNK) await handleChunk();
  }
  await handleChunk();
  return stoppedBy === undefined ? counts : { ...counts, stoppedBy };
}

/** The entry of a line when it passes the service's checks (a request id among them). */
function checked(read: ReplayLine): (ActivityEntry & { readonly requestId: string }) | undefined {
  if ('oversizedBytes' in read || read.entry === undefined || entryCheckFailure(read.entry) !== undefined) return undefined;
  const { requestId } = read.entry;
  return requestId === undefined ? undefined : { ...read.entry, requestId };
}

function unavailable(error: unknown): string {
  return `the store is unavailable: ${error instanceof Error ? error.message : String(error)}`;
}
