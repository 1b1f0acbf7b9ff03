import { closeSync, openSync, writeSync } from 'node:fs';

/** Writes `path` a page at a time until its file system refuses (ENOSPC): a disk full to its last byte. */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}
