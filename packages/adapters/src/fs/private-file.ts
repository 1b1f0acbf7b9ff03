import { closeSync, openSync } from 'node:fs';

/**
 * Creates `path` empty with mode 0600 (owner only: an umask can only take bits away), so that a
 * library that then opens it — and creates its side files with the same mode, as SQLite does its
 * -wal and -shm — never makes it readable by other local users. Something already at `path` is left
 * as it is (O_EXCL). Any other failure is left to the library opening it, which reports it in its
 * own words.
 */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch {
    // EEXIST: the file is there already; anything else: the opener's own error says it better.
  }
}
