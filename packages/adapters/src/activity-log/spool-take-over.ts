import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { tryLock } from '../fs/flock.js';
import { readSegment, type SpooledEntry } from './spool-format.js';
import { adoptedSegment, sameFile, type SpoolSegment } from './spool-segment.js';

/** Names in the spool folder the take-over could not read as a segment: skipped, left as they are, and counted. */
export interface SkippedNames {
  readonly directory: number;
  readonly symlink: number;
  /** A FIFO, a socket or a device. */
  readonly special: number;
  /** A segment that could not be opened or read (`EACCES`: a root-run process left it, an I/O error). */
  readonly unopenable: number;
  /** A segment of a format a later release wrote: kept whole for that release. */
  readonly unknownFormat: number;
}

export const NOTHING_SKIPPED: SkippedNames = { directory: 0, symlink: 0, special: 0, unopenable: 0, unknownFormat: 0 };

/** A segment taken over, with its entries not yet done. */
export interface TakenSegment {
  readonly segment: SpoolSegment;
  readonly pending: SpooledEntry[];
}

export interface TakenOver {
  readonly segments: TakenSegment[];
  /** Lines of those segments that held no entry (a write cut short by a crash, a damaged region): skipped. */
  readonly unreadable: number;
  readonly skipped: SkippedNames;
  /** The names skipped, for the log (no content of theirs). */
  readonly skippedNames: string[];
}

const SUFFIX = '.spool';
/**
 * Never follows a link (a `*.spool` link must not lead the take-over to cut another file), and never
 * waits for a writer (opening a FIFO for reading alone would wait forever).
 */
const OPEN_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Takes over the segments in `dir` no live process holds (their lock can be taken), oldest first (a
 * name starts with its creation time). What is not a regular file, or cannot be opened or read, is
 * skipped and counted, never fatal: a start never fails for what it can skip. A segment whose entries
 * are all done is removed.
 */
export function takeOverSegments(dir: string): TakenOver {
  const skipped = { ...NOTHING_SKIPPED };
  const skippedNames: string[] = [];
  const segments: TakenSegment[] = [];
  let unreadable = 0;
  const skip = (name: string, why: keyof SkippedNames) => {
    skipped[why] += 1;
    skippedNames.push(name);
  };
  for (const name of readdirSync(dir)
    .filter((file) => file.endsWith(SUFFIX))
    .sort()) {
    const path = join(dir, name);
    const taken = takeOver(path);
    if (taken === undefined) continue;
    if ('skip' in taken) {
      skip(name, taken.skip);
      continue;
    }
    unreadable += taken.unreadable;
    if (taken.segment.pending === 0) taken.segment.remove();
    else segments.push({ segment: taken.segment, pending: taken.pending });
  }
  return { segments, unreadable, skipped, skippedNames };
}

type TakeOver =
  | { segment: SpoolSegment; pending: SpooledEntry[]; unreadable: number }
  | { skip: keyof SkippedNames }
  /** Held by a live process, or gone (another process took it over and removed it). */
  | undefined;

function takeOver(path: string): TakeOver {
  let kind: keyof SkippedNames | 'file' | 'gone';
  try {
    kind = kindOf(lstatSync(path));
  } catch (error) {
    kind = isCode(error, 'ENOENT') ? 'gone' : 'unopenable';
  }
  if (kind === 'gone') return undefined;
  if (kind !== 'file') return { skip: kind };
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    // Replaced by a link between the lstat and the open.
    return { skip: isCode(error, 'ELOOP') ? 'symlink' : 'unopenable' };
  }
  let kept = false;
  try {
    // Replaced by something else between the lstat and the open.
    const opened = kindOf(fstatSync(fd));
    if (opened !== 'file') return { skip: opened };
    // Locked, and still the file of that name: one removed while we waited for nothing is done already.
    if (!tryLock(fd, 'exclusive') || !sameFile(fd, path)) return undefined;
    const content = readFileSync(fd);
    const read = readSegment(content);
    if (read.format === 'unknown') return { skip: 'unknownFormat' };
    const state = { format: read.format, bytes: read.complete, entries: read.positions, acknowledged: read.acknowledged, done: read.done };
    const segment = adoptedSegment(path, fd, state, content.length);
    kept = true;
    return { segment, pending: read.pending, unreadable: read.unreadable };
  } catch {
    return { skip: 'unopenable' };
  } finally {
    if (!kept) closeSync(fd);
  }
}

function kindOf(stats: Stats): keyof SkippedNames | 'file' {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'special';
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
