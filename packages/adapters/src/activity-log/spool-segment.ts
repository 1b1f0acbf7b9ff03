import { closeSync, fdatasync, fstatSync, ftruncateSync, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import type { ActivityEntry } from '@cotizaciones/core';
import { tryLock } from '../fs/flock.js';
import { entryRecord } from './entry-record.js';
import { FORMAT_LINE, SPOOL_FORMAT } from './spool-format.js';

/**
 * One file of the spool: JSON lines (their format: {@link SPOOL_FORMAT}), appended to by one process,
 * which holds an exclusive flock on it for as long as it has the file open (the kernel releases it
 * when the process dies, `kill -9` included). A segment of format 1 taken over from the previous
 * release is acknowledged in its own format.
 */
export interface SpoolSegment {
  readonly path: string;
  /** Bytes in the file. */
  readonly bytes: number;
  /** Entry lines in the file. */
  readonly entries: number;
  /** Entry lines not yet done. */
  readonly pending: number;
  /** Appends `count` entry lines (`lines`, each ending with its newline) in one write. Throws when they could not be written whole (nothing of them is left). */
  append(lines: string, count: number): void;
  /** Marks entry `index` (of request id `id`) done; the acknowledgement line is written by {@link SpoolSegment.commit}. */
  acknowledge(index: number, id: string | undefined): void;
  /** Writes the acknowledgement line for what is done, if anything new is; true when every entry is done. */
  commit(): boolean;
  /** Asks the disk, in the thread pool, to keep what was appended since the last call (a power loss, not a crash, needs it). */
  sync(): void;
  /** Removes the file (every entry done) and releases it. */
  remove(): void;
  /** Releases the file, keeping it for the next process. */
  release(): void;
}

export function entryLine(entry: ActivityEntry): string {
  return `{"e":${JSON.stringify(entryRecord(entry))}}\n`;
}

/** Creates a segment for this process, locked, its first line naming its format; throws if it cannot. */
export function createSegment(path: string): SpoolSegment {
  const fd = openSync(path, 'wx', 0o600);
  // Between the create and the lock, a starting process may take the empty file over and remove it:
  // the lock is then on a file without a name, whose lines no one would ever find.
  if (!tryLock(fd, 'exclusive') || !sameFile(fd, path)) {
    closeSync(fd);
    throw new Error(`${path} was taken over by another process before it was locked`);
  }
  const created = segment(path, fd, { format: SPOOL_FORMAT, bytes: 0, entries: 0, acknowledged: 0, done: new Set() });
  try {
    created.append(FORMAT_LINE, 0);
  } catch (error) {
    created.release();
    throw error;
  }
  return created;
}

/** What a segment taken over holds, as read (see {@link readSegment}): where this process goes on from. */
export interface SegmentState {
  readonly format: 1 | 2;
  /** Bytes in the file that end with a whole line (a torn last line is cut off). */
  readonly bytes: number;
  /** Entry lines, readable or not. */
  readonly entries: number;
  readonly acknowledged: number;
  readonly done: Set<number>;
}

/** A segment taken over: `fd` is open for reading and writing and exclusively locked; the file is cut to `state.bytes`. */
export function adoptedSegment(path: string, fd: number, state: SegmentState, fileBytes: number): SpoolSegment {
  // A torn last line: cut it off, so an acknowledgement appended later starts on a line of its own.
  if (state.bytes < fileBytes) ftruncateSync(fd, state.bytes);
  return segment(path, fd, state);
}

function segment(path: string, fd: number, state: SegmentState): SpoolSegment {
  const { format, acknowledged, done } = state;
  let { bytes, entries } = state;
  // `done`: entries done beyond the done prefix (out of order), by index; `fresh`: those not yet in an
  // acknowledgement line, by index, with their request id (what format 2 names them by).
  let fresh: Array<{ index: number; id: string | undefined }> = [];
  let committed = acknowledged;
  let prefix = acknowledged;
  while (done.delete(prefix)) prefix += 1;
  let open = true;
  let dirty = false;
  /** An fdatasync under way: the next waits for it (a slow disk would otherwise pile them up in the thread pool). */
  let syncing = false;
  const write = (line: string) => {
    dirty = true;
    const buffer = Buffer.from(line);
    let written = 0;
    try {
      while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written, bytes + written);
    } catch (error) {
      // Nothing of a line that is not whole stays: the file keeps ending with a whole line.
      if (written > 0) {
        try {
          ftruncateSync(fd, bytes);
        } catch {
          // The reader skips a torn last line anyway.
        }
      }
      throw error;
    }
    bytes += buffer.length;
  };
  /** Format 1: the done prefix, and the entries done beyond it, by place. */
  const placeAck = (): string | undefined => {
    const beyond = fresh.flatMap(({ index }) => (index >= prefix ? [index] : []));
    if (prefix <= committed && beyond.length === 0) return undefined;
    return beyond.length > 0 ? `{"ack":${prefix},"done":[${beyond.join(',')}]}\n` : `{"ack":${prefix}}\n`;
  };
  /** Format 2: the entries done, by request id (one without is done in memory only: the checks of a take-over refuse it anyway). */
  const identityAck = (): string | undefined => {
    const ids = fresh.flatMap(({ id }) => (id === undefined ? [] : [id]));
    if (ids.length === 0) {
      fresh = [];
      return undefined;
    }
    return `{"done":${JSON.stringify(ids)}}\n`;
  };
  const self: SpoolSegment = {
    path,
    get bytes() {
      return bytes;
    },
    get entries() {
      return entries;
    },
    get pending() {
      return entries - prefix - done.size;
    },
    append(lines, count) {
      write(lines);
      entries += count;
    },
    acknowledge(index, id) {
      if (index < prefix || done.has(index)) return;
      done.add(index);
      fresh.push({ index, id });
      while (done.delete(prefix)) prefix += 1;
    },
    commit() {
      const line = format === 1 ? placeAck() : identityAck();
      if (line !== undefined && open) {
        try {
          write(line);
          committed = prefix;
          fresh = [];
        } catch {
          // Not written (a full disk): the next process asks the store which of these it holds.
        }
      }
      return prefix >= entries;
    },
    sync() {
      if (!dirty || !open || syncing) return;
      dirty = false;
      syncing = true;
      // Not waited for: a failure (the file closed meanwhile) leaves what the kernel will write anyway.
      fdatasync(fd, () => (syncing = false));
    },
    remove() {
      if (!open) return;
      open = false;
      // Unlinked while still locked: a process that opened it meanwhile finds it gone (sameFile).
      try {
        unlinkSync(path);
      } catch {
        // Already gone (the folder emptied by hand), or left in place: every entry in it is acknowledged, so a next start removes it.
      } finally {
        closeSync(fd);
      }
    },
    release() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
  return self;
}

/** Whether `fd` is the file named `path` (not a link to it: the name is not followed). */
export function sameFile(fd: number, path: string): boolean {
  try {
    const opened = fstatSync(fd);
    const named = lstatSync(path);
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false;
  }
}
