import { appendFile } from 'node:fs/promises';
import type { ActivityEntry } from '@cotizaciones/core';
import { deadLetterLine, type Refusal } from './dead-letter-line.js';

/** Where entries the store refuses are set aside. */
export interface DeadLetter {
  /** Resolves once the entry is stored; rejects when it could not be. */
  append(entry: ActivityEntry, refusal: Refusal): Promise<void>;
  /** Resolves once every append so far has finished. */
  close(): Promise<void>;
}

/**
 * A JSON-lines dead-letter file (`ACTIVITY_LOG_DEAD_LETTER`). Appends are
 * asynchronous (the thread pool does the I/O) and one at a time, so lines never
 * interleave. Each append opens the file by name: the replay command may
 * replace the file meanwhile. Only the owner may read it (user ids, IPs). Its
 * folder must exist: an adapter creates no folders.
 */
export function deadLetterFile(path: string): DeadLetter {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    append(entry, refusal) {
      const line = deadLetterLine(entry, refusal, new Date());
      const appended = tail.then(async () => {
        await appendFile(path, line, { mode: 0o600 });
      });
      tail = appended.catch(() => undefined);
      return appended;
    },
    async close() {
      await tail;
    },
  };
}
