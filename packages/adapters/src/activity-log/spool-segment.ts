import { closeSync, fdatasync, fstatSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { ActivityEntry } from '@cotizaciones/core';
import { tryLock } from '../fs/flock.js';
import { entryOfRecord, entryRecord } from './entry-record.js';

/**
 * One file of the spool: JSON lines, appended to by one process, which holds an exclusive flock on
 * it for as long as it has the file open (the kernel releases it when the process dies, `kill -9`
 * included). An entry line is `{"e":<entry>}`; an acknowledgement line `{"ack":n,"done":[i,…]}` says
 * the first `n` entry lines of the file are done (stored, or set aside), and entries `i…` beyond them
 * too. A last line without its newline (a write cut short) is no line at all.
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
  /** Marks entry `index` done; an acknowledgement line is written once a longer prefix is done (see {@link SpoolSegment.commit}). */
  acknowledge(index: number): void;
  /** Writes the acknowledgement line for what is done, if anything new is; true when every entry is done. */
  commit(): boolean;
  /** Asks the disk, in the thread pool, to keep what was appended since the last call (a power loss, not a crash, needs it). */
  sync(): void;
  /** Removes the file (every entry done) and releases it. */
  remove(): void;
  /** Releases the file, keeping it for the next process. */
  release(): void;
}

/** An entry read back from a segment another process left, with its index there. */
export interface SpooledEntry {
  readonly entry: ActivityEntry;
  readonly index: number;
}

export function entryLine(entry: ActivityEntry): string {
  return `{"e":${JSON.stringify(entryRecord(entry))}}\n`;
}

/** Creates a segment for this process, locked; throws if it cannot. */
export function createSegment(path: string): SpoolSegment {
  const fd = openSync(path, 'wx', 0o600);
  // Between the create and the lock, a starting process may take the empty file over and remove it:
  // the lock is then on a file without a name, whose lines no one would ever find.
  if (!tryLock(fd, 'exclusive') || !sameFile(fd, path)) {
    closeSync(fd);
    throw new Error(`${path} was taken over by another process before it was locked`);
  }
  return segment(path, fd, 0, 0, 0, new Set());
}

/**
 * Takes over a segment no live process holds: `undefined` when one does (its lock is held) or the
 * file is gone (another process took it over and removed it). Its entries not yet acknowledged come
 * back; unreadable lines (a write cut short by a crash) are skipped.
 */
export function adoptSegment(path: string): { segment: SpoolSegment; pending: SpooledEntry[]; unreadable: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    // Locked, and still the file of that name: one removed while we waited for nothing is done already.
    if (!tryLock(fd, 'exclusive') || !sameFile(fd, path)) {
      closeSync(fd);
      return undefined;
    }
    const content = readFileSync(fd);
    const { entries, positions, acknowledged, done, unreadable, complete } = readSegment(content);
    let bytes = content.length;
    if (complete < content.length) {
      // A torn last line: cut it off, so an acknowledgement appended later starts on a line of its own.
      ftruncateSync(fd, complete);
      bytes = complete;
    }
    const pending = entries.filter(({ index }) => index >= acknowledged && !done.has(index));
    const adopted = segment(path, fd, bytes, positions, acknowledged, done);
    return { segment: adopted, pending, unreadable };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * What a segment's bytes hold: its entry lines in order, which are acknowledged (a prefix, and
 * others), and how many bytes end with a whole line. An entry's index is its line's place among the
 * lines that are not acknowledgements, readable or not, as the writing process counted them: one
 * unreadable line (a hand edit, a record a later release wrote) must not move the acknowledgements
 * of the lines after it onto their neighbours. `positions` counts those lines.
 */
export function readSegment(content: Buffer): {
  entries: SpooledEntry[];
  positions: number;
  acknowledged: number;
  done: Set<number>;
  unreadable: number;
  complete: number;
} {
  const entries: SpooledEntry[] = [];
  const done = new Set<number>();
  let positions = 0;
  let acknowledged = 0;
  let unreadable = 0;
  const complete = content.lastIndexOf(0x0a) + 1;
  const text = content.subarray(0, complete).toString('utf8');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const record = parsed(line);
    if (record === undefined ? isDamagedAck(line) : typeof record.ack === 'number') {
      if (typeof record?.ack === 'number') {
        acknowledged = Math.max(acknowledged, record.ack);
        if (Array.isArray(record.done)) for (const index of record.done) if (typeof index === 'number') done.add(index);
      } else unreadable += 1;
      continue;
    }
    const index = positions;
    positions += 1;
    const entry = entryOfRecord(record?.e);
    if (entry) entries.push({ entry, index });
    else {
      // Nothing can forward it: done, so the segment can still end (the count goes to the log).
      unreadable += 1;
      done.add(index);
    }
  }
  if (complete < content.length) unreadable += 1;
  acknowledged = Math.min(acknowledged, positions);
  for (const index of done) if (index < acknowledged || index >= positions) done.delete(index);
  return { entries, positions, acknowledged, done, unreadable, complete };
}

function parsed(line: string): { e?: unknown; ack?: unknown; done?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return undefined;
  }
}

/** A line that is not JSON was an acknowledgement if it says `"ack":` and holds no entry's last field. */
function isDamagedAck(line: string): boolean {
  return line.includes('"ack":') && !line.includes('"userAgent":');
}

function segment(path: string, fd: number, bytes: number, entries: number, acknowledged: number, done: Set<number>): SpoolSegment {
  // `done`: entries done beyond the acknowledged prefix (out of order), by index; `fresh`: those not yet in an acknowledgement line.
  let fresh: number[] = [];
  let committed = acknowledged;
  let prefix = acknowledged;
  while (done.delete(prefix)) prefix += 1;
  let open = true;
  let dirty = false;
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
    acknowledge(index) {
      if (index < prefix || done.has(index)) return;
      done.add(index);
      fresh.push(index);
      while (done.delete(prefix)) prefix += 1;
    },
    commit() {
      const beyond = fresh.filter((index) => index >= prefix);
      if ((prefix > committed || beyond.length > 0) && open) {
        try {
          write(beyond.length > 0 ? `{"ack":${prefix},"done":[${beyond.join(',')}]}\n` : `{"ack":${prefix}}\n`);
          committed = prefix;
          fresh = [];
        } catch {
          // Not written (a full disk): the next process asks the store which of these it holds.
        }
      }
      return prefix >= entries;
    },
    sync() {
      if (!dirty || !open) return;
      dirty = false;
      // Not waited for: a failure (the file closed meanwhile) leaves what the kernel will write anyway.
      fdatasync(fd, () => undefined);
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

function sameFile(fd: number, path: string): boolean {
  try {
    const opened = fstatSync(fd);
    const named = statSync(path);
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false;
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
