import { createReadStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { cappedLines } from '../fs/capped-lines.js';
import { lockedByName, lockedByNameIfFree } from '../fs/locked-by-name.js';
import { entryOfDeadLetterLine, MAX_LINE_BYTES } from './dead-letter-line.js';
import { NOTHING_REPLAYED, replayLines, type ReplayLine, type ReplayResult, type ReplayStore } from './replay-entries.js';

/**
 * Writes every entry of a dead-letter file to `store` and leaves in the file only what was not
 * written, while a running service may go on appending to it. The file is shared by flock
 * (docs/decisions, the dead-letter file's sharing): the replay holds the file's exclusive lock only
 * to rename it aside (`<file>.replaying`) at its start and to append what it keeps back at its end;
 * in between, the service's appends (shared lock, opened by name) go to a new file at the name. The
 * aside file is read as a stream, and the lines kept are written to `<file>.kept` as they come. A
 * replay killed midway leaves the aside file, which the next replay takes up first; what the killed
 * one had written is then skipped by request id. A flock on `<file>.replay-lock` keeps two replays of
 * one file from running at once (released if the process dies).
 */
export async function replayDeadLetterFile(
  path: string,
  store: ReplayStore,
  options: { signal?: AbortSignal } = {},
): Promise<ReplayResult> {
  const lockPath = `${path}.replay-lock`;
  const lock = await lockedByNameIfFree(lockPath, 'a', 'exclusive').catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return null; // no folder: no dead-letter file either
    throw error;
  });
  if (lock === null) return NOTHING_REPLAYED;
  if (lock === undefined) throw new Error(`another replay of ${path} is running (it holds ${lockPath})`);
  try {
    const aside = `${path}.replaying`;
    if (!(await exists(aside)) && !(await takeAside(path, aside))) return NOTHING_REPLAYED;
    const keptPath = `${path}.kept`;
    const kept = await open(keptPath, 'w', 0o600);
    let result: ReplayResult;
    try {
      result = await replayLines(deadLetterLines(aside), store, (line) => kept.appendFile(`${line}\n`), options.signal);
      await kept.sync();
    } finally {
      await kept.close();
    }
    await appendBack(keptPath, path);
    // A replay killed between the append above and this removal leaves the kept lines twice in the
    // file: the next replay writes each entry once all the same (it skips what the store holds).
    await rm(aside);
    await rm(keptPath);
    return result;
  } finally {
    // Removed while still held: a replay waiting on this inode finds it gone and opens the name anew.
    await rm(lockPath, { force: true });
    await lock.close();
  }
}

async function* deadLetterLines(path: string): AsyncGenerator<ReplayLine> {
  for await (const read of cappedLines(path, MAX_LINE_BYTES - 1)) {
    if ('oversizedBytes' in read) yield read;
    else if (read.text.trim() !== '') yield { line: read.text, entry: entryOfDeadLetterLine(read.text) };
  }
}

/** Renames the file aside under its exclusive lock: no append is under way, and later ones open the name anew. False when there is no file. */
async function takeAside(path: string, aside: string): Promise<boolean> {
  const file = await lockedByName(path, 'r', 'exclusive').catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  });
  if (!file) return false;
  try {
    await rename(path, aside);
    return true;
  } finally {
    await file.close();
  }
}

/** Appends the kept lines to the file at `path` (created if the service has not since), under its exclusive lock so no line of the service's lands among them. */
async function appendBack(keptPath: string, path: string): Promise<void> {
  const file = await lockedByName(path, 'a', 'exclusive');
  try {
    for await (const chunk of createReadStream(keptPath) as AsyncIterable<Buffer>) await file.appendFile(chunk);
    await file.sync();
  } finally {
    await file.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => {
      if (isCode(error, 'ENOENT')) return false;
      throw error;
    },
  );
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
