/** What identifies one version of a session file: a rewrite changes its size, or its times. */
export interface FileVersion {
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

interface Cached {
  readonly version: FileVersion;
  readonly bytes: Uint8Array;
}

export interface ReadCache {
  /** The bytes read of this very version, if kept. */
  get(id: string, version: FileVersion): Uint8Array | undefined;
  /**
   * Keeps the bytes read of `version`, read from `readStartedMs` on. Not kept when the file changed
   * within `racyMs` before the read: a later rewrite could then carry the same times (their clock
   * ticks coarsely) and size, and look like this version.
   */
  set(id: string, version: FileVersion, bytes: Uint8Array, readStartedMs: number): void;
  delete(id: string): void;
}

const sameVersion = (a: FileVersion, b: FileVersion) =>
  a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

/**
 * The sessions read lately, by id, bounded in entries and bytes (least recently used out first), so
 * a request whose session PHP has not rewritten since costs one `lstat`, not an open, read and close.
 */
export function readCache({
  maxEntries,
  maxBytes,
  maxEntryBytes,
  racyMs,
}: {
  maxEntries: number;
  maxBytes: number;
  maxEntryBytes: number;
  racyMs: number;
}): ReadCache {
  const entries = new Map<string, Cached>();
  let bytes = 0;
  const remove = (id: string) => {
    const found = entries.get(id);
    if (!found) return;
    entries.delete(id);
    bytes -= found.bytes.length;
  };
  return {
    get(id, version) {
      const found = entries.get(id);
      if (!found) return undefined;
      if (!sameVersion(found.version, version)) {
        remove(id);
        return undefined;
      }
      // Most recently used last.
      entries.delete(id);
      entries.set(id, found);
      return found.bytes;
    },
    set(id, version, data, readStartedMs) {
      remove(id);
      if (data.length > maxEntryBytes || Number(version.ctimeNs / 1_000_000n) >= readStartedMs - racyMs) return;
      // A copy of its own size: `data` may be a view of a larger buffer, which the bound would not count.
      const copy = new Uint8Array(data.length);
      copy.set(data);
      entries.set(id, { version, bytes: copy });
      bytes += data.length;
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    delete: remove,
  };
}
