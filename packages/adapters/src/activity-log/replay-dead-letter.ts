import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { ActivityLogStore } from './activity-log-store.js';
import { isRefusal } from './activity-store-error.js';
import { deadLetterLine, entryOfDeadLetterLine } from './dead-letter-line.js';

export interface ReplayResult {
  /** Entries now in the store, removed from the file. */
  readonly written: number;
  /** Entries the store still refuses, kept (with the new reason). */
  readonly stillRefused: number;
  /** Lines that hold no entry, kept as they are for a person to look at. */
  readonly unreadable: number;
  /** Entries not tried because the replay stopped (store unavailable, interrupted), kept. */
  readonly notTried: number;
  /** Why the replay stopped early, if it did. */
  readonly stoppedBy?: string;
}

/**
 * Writes every entry of a dead-letter file to `store`, one at a time, and
 * rewrites the file to keep only what was not written. Running it again only
 * retries what is left. The file is replaced atomically (a temporary file,
 * then a rename); lines a running service appended meanwhile are carried
 * over. A lock file keeps two replays of one file from running at once.
 */
export async function replayDeadLetterFile(path: string, store: ActivityLogStore, options: { signal?: AbortSignal } = {}): Promise<ReplayResult> {
  const lock = await open(`${path}.replay-lock`, 'wx').catch((error: unknown) => {
    if (isCode(error, 'EEXIST')) throw new Error(`${path}.replay-lock exists: another replay is running (or one was killed: then remove the lock file)`);
    if (isCode(error, 'ENOENT')) return undefined; // no directory: no dead-letter file either
    throw error;
  });
  if (!lock) return { written: 0, stillRefused: 0, unreadable: 0, notTried: 0 };
  try {
    return await replayLocked(path, store, options.signal);
  } finally {
    await lock.close();
    await rm(`${path}.replay-lock`, { force: true });
  }
}

async function replayLocked(path: string, store: ActivityLogStore, signal: AbortSignal | undefined): Promise<ReplayResult> {
  const content = await readFile(path).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  });
  if (content === undefined) return { written: 0, stillRefused: 0, unreadable: 0, notTried: 0 };

  const kept: string[] = [];
  let written = 0;
  let stillRefused = 0;
  let unreadable = 0;
  let notTried = 0;
  let stoppedBy: string | undefined;
  for (const line of content.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    if (stoppedBy === undefined && signal?.aborted) stoppedBy = 'interrupted';
    if (stoppedBy !== undefined) {
      notTried += 1;
      kept.push(`${line}\n`);
      continue;
    }
    const entry = entryOfDeadLetterLine(line);
    if (!entry) {
      unreadable += 1;
      kept.push(`${line}\n`);
      continue;
    }
    try {
      await store.write([entry]);
      written += 1;
    } catch (error) {
      if (isRefusal(error)) {
        stillRefused += 1;
        kept.push(deadLetterLine(entry, { code: error.code, reason: error.message }, new Date()));
      } else {
        stoppedBy = `the store is unavailable: ${error instanceof Error ? error.message : String(error)}`;
        notTried += 1;
        kept.push(`${line}\n`);
      }
    }
  }

  // What a running service appended while the entries were written (it opens the file by name on
  // each append, so after the rename its next line goes to the new file).
  const now = await readFile(path);
  const appended = now.subarray(Math.min(content.length, now.length));
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, Buffer.concat([Buffer.from(kept.join('')), appended]), { mode: 0o600 });
  await rename(temporary, path);
  return { written, stillRefused, unreadable, notTried, ...(stoppedBy === undefined ? {} : { stoppedBy }) };
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
