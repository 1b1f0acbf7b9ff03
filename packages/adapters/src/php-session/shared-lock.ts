import { spawn } from 'node:child_process';

export type SharedLock = 'locked' | 'timeout' | 'unavailable';

/**
 * Takes PHP's lock, shared, on an open file: util-linux's `flock --shared` on the descriptor, which
 * the child inherits as its stdin. A flock belongs to the open file description, so the lock stays
 * with this process's descriptor after the child exits, until it is closed. Node has no flock, and
 * the npm lock packages take fcntl locks, which do not see PHP's. The cost (one short-lived process)
 * is paid only on the slow path: a read that came back empty or undecodable.
 */
export function sharedLock(fd: number, waitMs: number): Promise<SharedLock> {
  return new Promise((resolve) => {
    const child = spawn('flock', ['--shared', '--wait', (waitMs / 1000).toFixed(3), '0'], { stdio: [fd, 'ignore', 'ignore'] });
    child.once('error', () => resolve('unavailable'));
    // flock exits 1 when the wait ran out (its --conflict-exit-code); anything else is a failure to lock.
    child.once('exit', (code) => resolve(code === 0 ? 'locked' : code === 1 ? 'timeout' : 'unavailable'));
  });
}
