import { open, stat, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tryLock, type LockMode } from './flock.js';

/** Longest pause between two tries of a lock another open file holds. */
const MAX_PAUSE_MS = 50;

/**
 * Opens `path` by name (`flags` as fs.open's, e.g. 'a' to append, creating it) and takes a flock on
 * it, polling with backoff so the event loop never blocks. Once the lock is held, the file at `path`
 * must still be the one opened: if it was renamed or removed meanwhile (the dead-letter replay takes
 * its file aside that way), the descriptor is closed and the path opened again. The lock is released
 * by closing the handle.
 */
export async function lockedByName(path: string, flags: string, mode: LockMode): Promise<FileHandle> {
  return (await locked(path, flags, mode, true)) as FileHandle;
}

/** As {@link lockedByName}, but undefined at once when another open file holds a conflicting lock. */
export function lockedByNameIfFree(path: string, flags: string, mode: LockMode): Promise<FileHandle | undefined> {
  return locked(path, flags, mode, false);
}

async function locked(path: string, flags: string, mode: LockMode, wait: boolean): Promise<FileHandle | undefined> {
  for (;;) {
    const handle = await open(path, flags, 0o600);
    try {
      let pause = 1;
      while (!tryLock(handle.fd, mode)) {
        if (!wait) {
          await handle.close();
          return undefined;
        }
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
      if (await sameFile(handle, path)) return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
    await handle.close();
  }
}

async function sameFile(handle: FileHandle, path: string): Promise<boolean> {
  const [opened, named] = await Promise.all([handle.stat(), stat(path).catch(() => undefined)]);
  return named !== undefined && named.ino === opened.ino && named.dev === opened.dev;
}
