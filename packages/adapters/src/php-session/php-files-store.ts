import { constants } from 'node:fs';
import { access, lutimes, open } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionUnavailableError } from '@cotizaciones/core';
import type { FilesSavePath } from './save-path.js';
import { isLocked } from './proc-locks.js';
import type { PhpSaveHandlerStore, StoredSession } from './save-handler-store.js';

export interface FilesStoreOptions extends FilesSavePath {
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  readonly now: () => number;
  /** Told once when the files cannot be touched (their owner is another user). */
  readonly onTouchRefused: (error: Error) => void;
}

const ABSENT: StoredSession = { kind: 'absent' };
// PHP rewrites a session by ftruncate then pwrite under its flock: in between, the file reads empty. The gap is
// microseconds, but a PHP process descheduled between the two calls stretched it past 300 ms on a loaded 2-core
// machine. So an empty read is not believed at once: while PHP visibly holds the lock, wait as a second PHP request
// would (up to LOCK_WAIT_MS, then 503); while the file was written in the last RECENT_MS (a lock in another
// container is not visible), re-read after 1, 2, 4 … ms up to RECENT_WAIT_MS; an empty file older than that is empty.
const LOCK_WAIT_MS = 2_000;
const RECENT_MS = 2_000;
const RECENT_WAIT_MS = 500;

/**
 * PHP's `files` handler: `sess_<id>` under the save path. Read without PHP's
 * flock (Node has none), so a file PHP is rewriting can read empty or short:
 * the caller retries. Like PHP's mod_files, only a regular file (no symlink)
 * owned by this process's user or root is trusted — the directory is
 * world-writable (1733), and anyone could plant a session there.
 */
export function phpFilesStore(options: FilesStoreOptions): PhpSaveHandlerStore {
  const uid = process.geteuid?.() ?? 0;
  let touchRefused = false;

  function pathOf(id: string): string {
    return join(options.dir, ...id.slice(0, options.depth).split(''), `sess_${id}`);
  }

  async function ping(): Promise<void> {
    try {
      // Search, not list: Debian's directory is 1733, and the PHP user only needs to reach its files.
      await access(options.dir, constants.X_OK);
    } catch (error) {
      throw new SessionUnavailableError('the PHP session directory cannot be read', { cause: withoutPath(error) });
    }
  }

  async function readOnce(id: string): Promise<StoredSession | { kind: 'empty'; dev: number; ino: number; mtimeMs: number }> {
    let file;
    try {
      file = await open(pathOf(id), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENAMETOOLONG: "sess_" and a 251-256 character id exceed a file name; PHP cannot have written it either.
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') {
        // No such session, unless the directory itself is gone: that is an outage, not a sign-out.
        await ping();
        return ABSENT;
      }
      if (code === 'ELOOP') return { kind: 'refused', reason: 'not-a-regular-file' };
      throw new SessionUnavailableError(`the PHP session directory cannot be read (${code ?? 'error'})`, { cause: withoutPath(error) });
    }
    try {
      const stat = await file.stat();
      if (!stat.isFile()) return { kind: 'refused', reason: 'not-a-regular-file' };
      // Stricter than PHP run as root (which accepts any owner): a service trusts only its own files.
      if (stat.uid !== uid && stat.uid !== 0) {
        return { kind: 'refused', reason: 'foreign-owner', detail: `owned by uid ${stat.uid}, the service runs as uid ${uid}: run it as the PHP user` };
      }
      // PHP's GC deletes a file untouched for longer than gc_maxlifetime, whenever it runs: it is gone already.
      if (Math.floor(options.now() / 1000) - Math.floor(stat.mtimeMs / 1000) > options.gcMaxLifetimeSeconds) return ABSENT;
      if (stat.size > options.maxBytes) return { kind: 'refused', reason: 'oversized' };
      // Read to the end, not to the size fstat saw: PHP may be writing a longer session right now.
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.alloc(Math.max(stat.size + 1, 4096));
        const { bytesRead } = await file.read(chunk, 0, chunk.length, total);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
        if (total > options.maxBytes) return { kind: 'refused', reason: 'oversized' };
        // A short read of a regular file is its end.
        if (bytesRead < chunk.length) break;
      }
      if (total === 0) return { kind: 'empty', dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs };
      return { kind: 'data', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
    } catch (error) {
      throw new SessionUnavailableError('a PHP session file cannot be read', { cause: withoutPath(error) });
    } finally {
      await file.close();
    }
  }

  return {
    rewritesInPlace: true,
    async read(id) {
      const started = Date.now();
      for (let delay = 1; ; delay = Math.min(delay * 2, 64)) {
        const stored = await readOnce(id);
        if (stored.kind !== 'empty') return stored;
        const waited = Date.now() - started;
        const locked = await isLocked(stored.dev, stored.ino);
        if (locked === true && waited >= LOCK_WAIT_MS) {
          throw new SessionUnavailableError(`a PHP request has held this session's lock for over ${LOCK_WAIT_MS} ms`);
        }
        const recent = options.now() - stored.mtimeMs <= RECENT_MS;
        if (locked !== true && (!recent || waited >= RECENT_WAIT_MS)) return { kind: 'data', bytes: new Uint8Array(0) };
        await sleep(delay);
      }
    },
    async touchExpiry(id) {
      if (touchRefused) return;
      const now = new Date(options.now());
      try {
        // lutimes: never follows a link planted after the read.
        await lutimes(pathOf(id), now, now);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPERM' || code === 'EACCES') {
          // Only the owner may set a file's times: the service does not run as the PHP user. Say so once.
          touchRefused = true;
          options.onTouchRefused(withoutPath(error));
        } else if (code !== 'ENOENT') {
          throw withoutPath(error);
        }
      }
    },
    ready: ping,
    ping,
    describe() {
      return `files in ${options.dir}${options.depth > 0 ? ` (${options.depth} levels of sub-folders)` : ''}`;
    },
    close() {
      return Promise.resolve();
    },
  };
}

/** A file error without its message: Node puts the path, and so the session id, in it. */
function withoutPath(error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  return Object.assign(new Error(code ?? 'file error'), code ? { code } : {});
}
