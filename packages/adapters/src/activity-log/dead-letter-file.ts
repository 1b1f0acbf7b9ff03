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

/**
 * A JSON-lines dead-letter file (`ACTIVITY_LOG_DEAD_LETTER`), bounded: a line keeps at most 64 KiB
 * (longer text values are cut, saying how long they were), and the file at most `maxBytes`. Appends
 * are asynchronous (the thread pool does the I/O) and one at a time, so lines never interleave.
 * Each append opens the file by name, takes a shared flock on it and checks it is still the file at
 * that name: the replay command takes the file aside (an exclusive flock, then a rename) and appends
 * back what it keeps the same way, so a line is never written to a file the replay has already read
 * (docs/decisions, the dead-letter file's sharing). Only the owner may read it (user ids, IPs). Its
 * folder must exist: an adapter creates no folders.
 */
export function deadLetterFile(path: string, options: { maxBytes?: number } = {}): DeadLetter {
  const maxBytes = options.maxBytes ?? DEAD_LETTER_MAX_BYTES;
  let tail: Promise<unknown> = Promise.resolve();
  return {
    append(entry, refusal, { bounded = true } = {}) {
      const line = deadLetterLine(entry, refusal, new Date());
      const appended = tail.then(async () => {
        const file = await lockedByName(path, 'a', 'shared');
        try {
          if (bounded && (await file.stat()).size + Buffer.byteLength(line) > maxBytes) return false;
          // O_APPEND and one write of at most 64 KiB: appenders sharing the lock never interleave.
          await file.appendFile(line);
        } finally {
          await file.close();
        }
        return true;
      });
      tail = appended.catch(() => undefined);
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
