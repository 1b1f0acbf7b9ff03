import { stat } from 'node:fs/promises';
import type { ActivityEntry } from '@cotizaciones/core';
import { lockedByName } from '../fs/locked-by-name.js';
import { deadLetterLine, type Refusal } from './dead-letter-line.js';

/** Where entries the store refuses are set aside. */
export interface DeadLetter {
  /**
   * Resolves `true` once the entry is stored, `false` when the file is full and `bounded` (the
   * default) let it be dropped; rejects when it could not be written. Entries a closing channel
   * sets aside (`bounded: false`) are written whatever the bound.
   */
  append(entry: ActivityEntry, refusal: Refusal, options?: { bounded?: boolean }): Promise<boolean>;
  /** Resolves once every append so far has finished. */
  close(): Promise<void>;
  /** The bytes it holds now (0 when there is none yet): read when asked, never per entry. */
  size(): Promise<number>;
  /** Its bound in bytes (ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES). */
  readonly maxBytes: number;
}

/** ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES's default. */
export const DEAD_LETTER_MAX_BYTES = 64 * 1024 * 1024;

/** One entry's line, waiting for its group's append. */
interface Waiting {
  readonly line: string;
  readonly bounded: boolean;
  readonly settle: (kept: boolean) => void;
  readonly fail: (error: unknown) => void;
}

/**
 * A JSON-lines dead-letter file (`ACTIVITY_LOG_DEAD_LETTER`), bounded: a line keeps at most 64 KiB
 * (longer text values are cut, saying how long they were), and the file at most `maxBytes`. Appends
 * are asynchronous (the thread pool does the I/O), one at a time, and grouped: the lines handed over
 * in one turn of the event loop, and all those handed over while the previous group was being
 * written, go in one append, so a burst of entries set aside costs a few appends, not one each.
 * Each append opens the file by name, takes a shared flock on it and checks it is still the file at
 * that name: the replay command takes the file aside (an exclusive flock, then a rename) and appends
 * back what it keeps the same way, so a line is never written to a file the replay has already read
 * (docs/decisions, the dead-letter file's sharing). Only the owner may read it (user ids, IPs). Its
 * folder must exist: an adapter creates no folders.
 */
export function deadLetterFile(path: string, options: { maxBytes?: number } = {}): DeadLetter {
  const maxBytes = options.maxBytes ?? DEAD_LETTER_MAX_BYTES;
  let waiting: Waiting[] = [];
  let tail: Promise<void> = Promise.resolve();
  let grouping = false;

  /** Appends the group's lines that fit (all of those not `bounded`); which ones did. */
  async function appendGroup(group: readonly Waiting[]): Promise<Set<Waiting>> {
    const file = await lockedByName(path, 'a', 'shared');
    try {
      let size = (await file.stat()).size;
      const kept = new Set<Waiting>();
      for (const item of group) {
        const bytes = Buffer.byteLength(item.line);
        if (item.bounded && size + bytes > maxBytes) continue;
        kept.add(item);
        size += bytes;
      }
      // O_APPEND, and the group in one write call: appenders sharing the lock never interleave within it.
      const data = Buffer.from([...kept].map((item) => item.line).join(''));
      for (let done = 0; done < data.length;) done += (await file.write(data, done)).bytesWritten;
      return kept;
    } finally {
      await file.close();
    }
  }

  return {
    append(entry, refusal, { bounded = true } = {}) {
      const line = deadLetterLine(entry, refusal, new Date());
      const appended = new Promise<boolean>((settle, fail) => waiting.push({ line, bounded, settle, fail }));
      if (!grouping) {
        grouping = true;
        // After the append under way, at the end of a turn: every line handed over until then joins the group.
        tail = tail
          .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
          .then(async () => {
            grouping = false;
            const group = waiting;
            waiting = [];
            try {
              const kept = await appendGroup(group);
              for (const item of group) item.settle(kept.has(item));
            } catch (error) {
              for (const item of group) item.fail(error);
            }
          });
      }
      return appended;
    },
    async close() {
      await tail;
    },
    // A stat, not a count of appends: the replay takes the file aside and other processes append to it too.
    size: () =>
      stat(path).then(
        (stats) => stats.size,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return 0;
          throw error;
        },
      ),
    maxBytes,
  };
}
