import { describe, expect, it } from 'vitest';
import { readCache, type FileVersion } from '../../src/php-session/read-cache.js';

const NOW = 1_800_000_000_000;
const version = (over: Partial<FileVersion> = {}): FileVersion => ({
  ino: 7n,
  size: 3n,
  mtimeNs: BigInt(NOW - 5_000) * 1_000_000n,
  ctimeNs: BigInt(NOW - 5_000) * 1_000_000n,
  ...over,
});
const bytes = (text: string) => new TextEncoder().encode(text);
const cache = (over: Partial<Parameters<typeof readCache>[0]> = {}) =>
  readCache({ maxEntries: 3, maxBytes: 100, maxEntryBytes: 50, racyMs: 1_000, ...over });

describe('the PHP files read cache', () => {
  it('gives the bytes of the same version only: another inode, size, modification or change time misses and drops the entry', () => {
    for (const changed of [{ ino: 8n }, { size: 4n }, { mtimeNs: 1n }, { ctimeNs: version().ctimeNs + 1n }]) {
      const kept = cache();
      kept.set('a', version(), bytes('abc'), NOW);
      expect(kept.get('a', version())).toEqual(bytes('abc'));
      expect(kept.get('a', version(changed))).toBeUndefined();
      expect(kept.get('a', version())).toBeUndefined();
    }
  });

  it("keeps nothing read within racyMs of the file's last change: a rewrite in the same tick could look the same", () => {
    const kept = cache();
    const recent = version({ ctimeNs: BigInt(NOW - 999) * 1_000_000n });
    kept.set('a', recent, bytes('abc'), NOW);
    expect(kept.get('a', recent)).toBeUndefined();
    const settled = version({ ctimeNs: BigInt(NOW - 1_001) * 1_000_000n });
    kept.set('a', settled, bytes('abc'), NOW);
    expect(kept.get('a', settled)).toEqual(bytes('abc'));
  });

  it('is bounded in entries and bytes, the least recently used out first, and keeps no entry over maxEntryBytes', () => {
    const kept = cache();
    for (const id of ['a', 'b', 'c']) kept.set(id, version(), bytes(id), NOW);
    kept.get('a', version());
    kept.set('d', version(), bytes('d'), NOW);
    expect(['a', 'b', 'c', 'd'].map((id) => kept.get(id, version()) !== undefined)).toEqual([true, false, true, true]);

    const byBytes = cache({ maxEntries: 100 });
    for (const id of ['a', 'b', 'c']) byBytes.set(id, version(), new Uint8Array(40), NOW);
    expect(['a', 'b', 'c'].map((id) => byBytes.get(id, version()) !== undefined)).toEqual([false, true, true]);
    byBytes.set('big', version(), new Uint8Array(51), NOW);
    expect(byBytes.get('big', version())).toBeUndefined();
    // What it holds is what it counts: a view into a larger buffer is kept as a copy of its own size.
    byBytes.set('view', version(), new Uint8Array(4096).subarray(0, 10), NOW);
    expect(byBytes.get('view', version())?.buffer.byteLength).toBe(10);
  });
});
