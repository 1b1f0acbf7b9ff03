import { closeSync, openSync, writeSync } from 'node:fs';
import { tryLock, unlock } from '../fs/flock.js';

export interface PhpLockHolder extends Disposable {
  /** PHP's write at the end of its request (the file is empty: a fresh session), then its lock released. */
  finish(data: string): void;
}

/**
 * A session file held as a PHP request holds it, from this process: another open file description
 * with the exclusive flock (two open file descriptions' flocks conflict as two processes' do).
 */
export function holdAsPhp(file: string): PhpLockHolder {
  const fd = openSync(file, 'r+');
  if (!tryLock(fd, 'exclusive')) {
    closeSync(fd);
    throw new Error('the session file is locked already');
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    finish(data) {
      writeSync(fd, data, 0);
      unlock(fd);
      close();
    },
    [Symbol.dispose]: close,
  };
}
