import { accessSync, closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { lutimes } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SessionUnavailableError } from '@cotizaciones/core';
import type { FilesSavePath } from './save-path.js';
import { expiryDue, type PhpSaveHandlerStore, type ReadOptions, type StoredSession } from './save-handler-store.js';
import { readCache } from './read-cache.js';
import { LOCK_WAIT_MS, sharedLocks } from './shared-lock.js';
import { turnMemo } from './turn-memo.js';
import { tryLock } from '../fs/flock.js';

export interface FilesStoreOptions extends FilesSavePath {
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  /** How many requests may wait on PHP's locks at once, across all sessions (fewer per session and per client); past it, 503 with a retry hint. */
  readonly maxLockWaiters: number;
  /** Told each time the number of requests waiting on PHP's locks changes. */
  readonly onLockWaiters?: (waiting: number) => void;
  readonly now: () => number;
  /** Told once when the files cannot be touched (their owner is another user). */
  readonly onTouchRefused: (error: Error) => void;
}

const ABSENT: StoredSession = { kind: 'absent' };
/**
 * A file changed this close before its read may be PHP's write in progress (and a rewrite in the same
 * clock tick could look the same): it is neither cached nor, empty or undecodable, taken as final.
 */
const RACY_MS = 1_000;

/**
 * PHP's `files` handler: `sess_<id>` under the save path. PHP rewrites a session by truncate then
 * write (it truncates only for a shorter version), under its exclusive flock for the whole request.
 * A read first goes without the lock (the common case, and cheap). A file unchanged for over RACY_MS
 * is final as read, whatever it holds: no write was in progress. So is an empty file never written
 * since PHP created it (its change time is its birth time): a session PHP has opened and holds with
 * no value yet, not waited for (anyone can open one on an id of their choosing). One changed lately that comes back empty, or
 * that the caller cannot decode, is read again (`consistentUntil`) under a shared flock, or as PHP's
 * next version if PHP writes it meanwhile, so a PHP write in progress is waited for (within the
 * caller's deadline, then 503) and never taken as final half done. Like PHP's mod_files, only a regular
 * file (no symlink) owned by this process's user or root is trusted — the directory is
 * world-writable (1733), and anyone could plant a session there.
 */
export function phpFilesStore(options: FilesStoreOptions): PhpSaveHandlerStore {
  const uid = process.geteuid?.() ?? 0;
  let touchRefused = false;

  const flat = join(options.dir, 'sess_');
  function pathOf(id: string): string {
    return options.depth === 0 ? flat + id : join(options.dir, ...id.slice(0, options.depth).split(''), `sess_${id}`);
  }

  /** Why the save path cannot be reached, if it cannot. */
  function unreachable(): SessionUnavailableError | undefined {
    try {
      // Search, not list: Debian's directory is 1733, and the PHP user only needs to reach its files.
      accessSync(options.dir, constants.X_OK);
      return undefined;
    } catch (error) {
      return new SessionUnavailableError('the PHP session directory cannot be read', { cause: withoutPath(error) });
    }
  }

  const locks = sharedLocks({
    maxWaiters: options.maxLockWaiters,
    waitMs: LOCK_WAIT_MS,
    ...(options.onLockWaiters ? { onWaiters: options.onLockWaiters } : {}),
  });
  const cache = readCache({ maxEntries: 10_000, maxBytes: 16 * 1024 * 1024, maxEntryBytes: 64 * 1024, racyMs: RACY_MS });
  const thisTurn = turnMemo<StoredSession>(1_024);
  /** The save path reached once this turn: requests with random unknown ids cost one `lstat` each, not two. */
  const reachedThisTurn = turnMemo<true>(1);

  /** What the file's metadata alone decides: refused, gone (GC would delete it), too large; undefined: read it. */
  function verdictFromMetadata(stat: BigIntStats): StoredSession | undefined {
    if (!stat.isFile()) return { kind: 'refused', reason: 'not-a-regular-file' };
    // Stricter than PHP run as root (which accepts any owner): a service trusts only its own files.
    if (stat.uid !== BigInt(uid) && stat.uid !== 0n) {
      return {
        kind: 'refused',
        reason: 'foreign-owner',
        detail: `owned by uid ${stat.uid}, the service runs as uid ${uid}: run it as the PHP user`,
      };
    }
    // PHP's GC deletes a file untouched for longer than gc_maxlifetime, whenever it runs: it is gone already.
    if (Math.floor(options.now() / 1000) - Number(stat.mtimeNs / 1_000_000_000n) > options.gcMaxLifetimeSeconds) return ABSENT;
    if (stat.size > BigInt(options.maxBytes)) return { kind: 'refused', reason: 'oversized' };
    return undefined;
  }

  function ping(): Promise<void> {
    const error = unreachable();
    return error ? Promise.reject(error) : Promise.resolve();
  }

  /** No such file: no such session, unless the directory itself is gone, which is an outage, not a sign-out. */
  function absent(): StoredSession {
    let error: SessionUnavailableError | undefined;
    reachedThisTurn.get('', () => {
      error = unreachable();
      return error ? undefined : true;
    });
    if (error) throw error;
    return ABSENT;
  }

  function missing(error: unknown): StoredSession {
    const code = (error as NodeJS.ErrnoException).code;
    // ENAMETOOLONG: "sess_" and a 251-256 character id exceed a file name; PHP cannot have written it either.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return absent();
    if (code === 'ELOOP') return { kind: 'refused', reason: 'not-a-regular-file' };
    throw new SessionUnavailableError(`the PHP session directory cannot be read (${code ?? 'error'})`, { cause: withoutPath(error) });
  }

  /**
   * The bytes read of this version of the file before, if kept: one `lstat` (a link is not
   * followed). The session files' calls are synchronous: on the local directory PHP's files handler
   * needs, each is a lookup in the kernel's caches, far cheaper than the thread-pool round trip of
   * an asynchronous call (decision 028). Waiting for PHP's lock, and the touch, stay asynchronous.
   */
  function cached(id: string): StoredSession | undefined {
    let stat;
    try {
      // An unknown id is the common miss: answered without the cost of an exception.
      stat = lstatSync(pathOf(id), { bigint: true, throwIfNoEntry: false });
    } catch (error) {
      return missing(error);
    }
    if (!stat) return absent();
    const verdict = verdictFromMetadata(stat);
    if (verdict) return verdict;
    const bytes = cache.get(id, stat);
    // Only versions unchanged for over RACY_MS before their read are kept: final.
    return bytes && { kind: 'data', bytes, modifiedMs: Number(stat.mtimeNs / 1_000_000n), final: true };
  }

  async function readOnce(id: string, { client, consistentUntil }: ReadOptions): Promise<StoredSession> {
    const started = options.now();
    let fd: number;
    try {
      fd = openSync(pathOf(id), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      return missing(error);
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      const verdict = verdictFromMetadata(stat);
      if (verdict) return verdict;
      // A file unchanged for over RACY_MS has no write in progress: read as it is, without the lock.
      const lockedRead = consistentUntil !== undefined && !changedBefore(stat, started - RACY_MS) && !neverWritten(stat);
      if (lockedRead) {
        const lock = await locks.take(
          { session: id, client, deadline: consistentUntil },
          () => tryLock(fd, 'shared'),
          () => {
            const now = fstatSync(fd, { bigint: true });
            return now.ctimeNs !== stat.ctimeNs || now.size !== stat.size;
          },
        );
        // PHP wrote meanwhile: its new version, read as any other (and waited for again if that is not final).
        if (lock === 'changed') return await readOnce(id, { client });
        if (lock !== 'locked') throw locks.refusal(lock);
      }
      // Read to the end, not to the size fstat saw: PHP may be writing a longer session right now.
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.allocUnsafe(Math.max(Number(stat.size) + 1, 4096));
        const bytesRead = readSync(fd, chunk, 0, chunk.length, total);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
        if (total > options.maxBytes) return { kind: 'refused', reason: 'oversized' };
        // A short read of a regular file is its end.
        if (bytesRead < chunk.length) break;
      }
      const bytes = chunks.length === 0 ? new Uint8Array(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      // Settled: this version's bytes (no write came between the fstat and the end of the read, which
      // would have changed the size or the change time), and a version older than RACY_MS.
      const settled =
        Number(stat.size) === total && changedBefore(stat, started - RACY_MS) && fstatSync(fd, { bigint: true }).ctimeNs === stat.ctimeNs;
      if (settled) cache.set(id, stat, bytes, started);
      // Empty now, and never written when fstat looked: PHP's fresh session, no value to wait for.
      const noValue = total === 0 && neverWritten(stat);
      return { kind: 'data', bytes, modifiedMs: Number(stat.mtimeNs / 1_000_000n), final: settled || lockedRead || noValue };
    } catch (error) {
      if (error instanceof SessionUnavailableError) throw error;
      throw new SessionUnavailableError('a PHP session file cannot be read', { cause: withoutPath(error) });
    } finally {
      // Closing the descriptor also releases a shared lock taken on it.
      closeSync(fd);
    }
  }

  return {
    async read(id, readOptions = {}) {
      // What one lstat answers (unknown, refused, gone, or this version's bytes kept) costs no more
      // than a request without a session, and is taken once a turn for every request of the turn
      // naming that id; a file to open and read waits for its turn of the event loop first, as an
      // asynchronous read would (decision 028).
      const answered = readOptions.consistentUntil === undefined ? thisTurn.get(id, () => cached(id)) : undefined;
      if (answered) return answered;
      await nextTurn();
      return readOnce(id, readOptions);
    },
    async touchExpiry(id, modifiedMs) {
      // Moved lately (by PHP or by us): the session is far from GC's reach still.
      if (touchRefused || !expiryDue(modifiedMs, options.now(), options.gcMaxLifetimeSeconds)) return;
      const now = new Date(options.now());
      try {
        // lutimes: never follows a link planted after the read.
        await lutimes(pathOf(id), now, now);
        thisTurn.forget(id);
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

function changedBefore(stat: BigIntStats, ms: number): boolean {
  return Number(stat.ctimeNs / 1_000_000n) < ms;
}

/**
 * Empty since its creation: PHP's truncate (of a version that had a value) moves the change time past
 * the birth time. A file system that keeps no birth time (0) says nothing: such a file is waited for.
 */
function neverWritten(stat: BigIntStats): boolean {
  return stat.size === 0n && stat.birthtimeNs !== 0n && stat.ctimeNs === stat.birthtimeNs;
}

/** A file error without its message: Node puts the path, and so the session id, in it. */
function withoutPath(error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  return Object.assign(new Error(code ?? 'file error'), code ? { code } : {});
}
