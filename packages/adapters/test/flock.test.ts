import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryLock, unlock } from '../src/fs/flock.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

// Two opens of one file are two open file descriptions: their flocks conflict as two processes' do.
function twoOpens() {
  const file = join(temporaryDir('flock-'), 'locked');
  const first = openSync(file, 'a');
  const second = openSync(file, 'r');
  return { first, second, [Symbol.dispose]: () => (closeSync(first), closeSync(second)) };
}

describe('flock', () => {
  it('shares a shared lock and refuses an exclusive one beside it', () => {
    using opens = twoOpens();
    expect(tryLock(opens.first, 'shared')).toBe(true);
    expect(tryLock(opens.second, 'shared')).toBe(true);
    unlock(opens.second);
    expect(tryLock(opens.second, 'exclusive')).toBe(false);
  });

  it('refuses any lock beside an exclusive one, until it is released', () => {
    using opens = twoOpens();
    expect(tryLock(opens.first, 'exclusive')).toBe(true);
    expect(tryLock(opens.second, 'shared')).toBe(false);
    expect(tryLock(opens.second, 'exclusive')).toBe(false);
    unlock(opens.first);
    expect(tryLock(opens.second, 'exclusive')).toBe(true);
  });

  it('releases the lock when its descriptor is closed', () => {
    const file = join(temporaryDir('flock-'), 'locked');
    const held = openSync(file, 'a');
    expect(tryLock(held, 'exclusive')).toBe(true);
    closeSync(held);
    const other = openSync(file, 'r');
    expect(tryLock(other, 'exclusive')).toBe(true);
    closeSync(other);
  });

  it('throws on a descriptor that is not open, instead of answering "held"', () => {
    expect(() => tryLock(987_654, 'shared')).toThrow(/errno 9/);
  });
});
