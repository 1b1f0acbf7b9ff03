import { closeSync, constants, openSync, readSync } from 'node:fs';
import { entryOfDeadLetterLine, MAX_LINE_BYTES } from './dead-letter-line.js';

/**
 * Which of `wanted` (request ids) the dead-letter file at `path` holds: entries set aside there are
 * the replay's to write. A replay running meanwhile moves lines from the file to `<file>.replaying`
 * (a rename) and back (appended before the aside file is removed), so the file is read, then the
 * aside file, then the file again: a line is in one of them at each read. Reads a chunk at a time;
 * an unreadable file or line holds none.
 */
export function setAsideIds(path: string, wanted: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  if (wanted.size === 0) return found;
  for (const file of [path, `${path}.replaying`, path]) {
    for (const line of lines(file)) {
      // Most lines name none of the few ids wanted: only those that may are parsed.
      if (![...line.matchAll(/"requestId":"([^"\\]{1,128})"/g)].some((match) => wanted.has(match[1]!))) continue;
      const entry = entryOfDeadLetterLine(line);
      if (entry?.requestId !== undefined && wanted.has(entry.requestId)) found.add(entry.requestId);
    }
  }
  return found;
}

/** The file's lines of at most a dead-letter line's length; none when it cannot be read. */
function* lines(path: string): Generator<string> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    const chunk = Buffer.alloc(MAX_LINE_BYTES * 4);
    let carry = Buffer.alloc(0);
    let skipping = false;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch {
        return;
      }
      if (read === 0) return;
      let data = Buffer.concat([carry, chunk.subarray(0, read)]);
      for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a)) {
        if (!skipping) yield data.subarray(0, end).toString('utf8');
        skipping = false;
        data = data.subarray(end + 1);
      }
      // A line longer than a dead-letter line can be is none of its lines: skipped to its end.
      if (data.length > MAX_LINE_BYTES) {
        skipping = true;
        data = Buffer.alloc(0);
      }
      carry = Buffer.from(data);
    }
  } finally {
    closeSync(fd);
  }
}
