import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchedFile } from '../src/batched-file.js';

describe('a file appended to in batches', () => {
  const opened = () => {
    const path = join(mkdtempSync(join(tmpdir(), 'batched-')), 'out.txt');
    return { path, fd: openSync(path, 'a') };
  };

  it('writes once what is buffered is 100 ms old, or 64 KiB, or at a flush or the close', () => {
    const { path, fd } = opened();
    let now = 0;
    const file = batchedFile(fd, () => now);
    file.append('a\n');
    now = 99;
    file.append('b\n');
    expect(readFileSync(path, 'utf8')).toBe('');
    now = 100;
    file.append('c\n');
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\n');
    file.append('x'.repeat(64 * 1024));
    expect(readFileSync(path, 'utf8')).toHaveLength(6 + 64 * 1024);
    file.append('d\n');
    file.flush();
    expect(readFileSync(path, 'utf8').endsWith('d\n')).toBe(true);
    file.append('e\n');
    file.close();
    expect(readFileSync(path, 'utf8').endsWith('d\ne\n')).toBe(true);
  });
});
