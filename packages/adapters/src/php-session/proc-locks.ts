import { readFile } from 'node:fs/promises';

/**
 * Whether some process holds a lock on the file (device `dev`, inode `ino`),
 * from Linux's /proc/locks: Node cannot take PHP's flock, but it can see it.
 * `undefined` where that cannot be known (not Linux, or /proc hidden). A PHP
 * in another PID namespace (another container) is not listed: callers treat
 * "not locked" as "not known to be locked".
 */
export async function isLocked(dev: number, ino: number): Promise<boolean | undefined> {
  let table: string;
  try {
    table = await readFile('/proc/locks', 'latin1');
  } catch {
    return undefined;
  }
  // glibc's gnu_dev_major / gnu_dev_minor; /proc/locks prints them in hex, the inode in decimal.
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  const minor = (dev & 0xff) | ((dev >>> 12) & ~0xff & 0xfffff);
  const wanted = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`;
  for (const line of table.split('\n')) {
    // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF" (a blocked waiter's line starts "1: ->").
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->') continue;
    if (fields[5] === wanted) return true;
  }
  return false;
}
