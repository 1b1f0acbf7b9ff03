import { createRequire } from 'node:module';
import type Koffi from 'koffi';

/**
 * flock(2) on an open descriptor, never blocking: the lock PHP's `files` handler takes, and the one a
 * process holds on its activity spool. Node has no flock, and the npm lock packages take fcntl (OFD)
 * locks, which flock does not see. koffi calls libc's own (its binary comes as an npm optional
 * package, nothing is built at install); it is loaded on first use, so a process that takes no lock
 * never loads it. A flock belongs to the open file description: closing the descriptor, or the
 * process dying, releases it.
 */
export type LockMode = 'shared' | 'exclusive';

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = 11;

interface Libc {
  readonly flock: (fd: number, operation: number) => number;
  readonly errno: () => number;
}

let libc: Libc | undefined;

function load(): Libc {
  if (libc) return libc;
  const require = createRequire(import.meta.url);
  const koffi = require('koffi') as typeof Koffi;
  const library = koffi.load('libc.so.6');
  const flock = library.func('int flock(int fd, int operation)') as (fd: number, operation: number) => number;
  libc = { flock, errno: () => koffi.errno() };
  return libc;
}

/** Takes the lock if no other open file holds a conflicting one: `true` when taken, `false` when held elsewhere. Throws on any other failure. */
export function tryLock(fd: number, mode: LockMode): boolean {
  const { flock, errno } = load();
  if (flock(fd, (mode === 'shared' ? LOCK_SH : LOCK_EX) | LOCK_NB) === 0) return true;
  const code = errno();
  if (code === EWOULDBLOCK) return false;
  throw Object.assign(new Error(`flock failed (errno ${code})`), { errno: code });
}

/** Releases a lock this descriptor holds (closing it does too). */
export function unlock(fd: number): void {
  load().flock(fd, LOCK_UN);
}

/** Whether locks can be taken here (koffi's binary loads, libc has flock): checked at start-up, not per request. */
export function locksAvailable(): boolean {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}
