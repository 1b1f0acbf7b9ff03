import { open } from 'node:fs/promises';

/** A line of a file (without its newline), or how long a line past the cap was and how it began: the rest was not kept. */
export type CappedLine = { readonly text: string } | { readonly oversizedBytes: number; readonly head: string };

/** How much of a line past the cap is kept: enough to tell what kind of line it was. */
const HEAD_BYTES = 256;

const READ_BYTES = 64 * 1024;

/**
 * The lines of a file, read as a stream: at most `maxBytes` of a line (its newline not counted) are
 * held at once, so memory stays bounded whatever the file holds. A longer line is given as its
 * length and first bytes only. A last line without a newline is still a line. The file is read into
 * one reused buffer: a long line leaves no garbage for the collector to catch up with.
 */
export async function* cappedLines(path: string, maxBytes: number): AsyncGenerator<CappedLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let oversized = 0;
  let head = '';
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let newline = chunk.indexOf(10); newline !== -1 && newline < bytesRead; newline = chunk.indexOf(10, start)) {
        const line = end(chunk.subarray(start, newline));
        if (line) yield line;
        start = newline + 1;
      }
      take(chunk.subarray(start));
    }
  } finally {
    await file.close();
  }
  if (held > 0 || oversized > 0) {
    const line = end(Buffer.alloc(0));
    if (line) yield line;
  }

  function take(piece: Buffer) {
    if (oversized > 0 || held + piece.length > maxBytes) {
      if (oversized === 0)
        head = Buffer.concat([...parts, piece.subarray(0, HEAD_BYTES)])
          .subarray(0, HEAD_BYTES)
          .toString('utf8');
      oversized = (oversized || held) + piece.length;
      parts = [];
      held = 0;
    } else if (piece.length > 0) {
      // A copy: the read buffer is reused.
      parts.push(Buffer.from(piece));
      held += piece.length;
    }
  }

  function end(piece: Buffer): CappedLine | undefined {
    take(piece);
    const line: CappedLine = oversized > 0 ? { oversizedBytes: oversized, head } : { text: Buffer.concat(parts, held).toString('utf8') };
    const empty = oversized === 0 && held === 0;
    parts = [];
    held = 0;
    oversized = 0;
    return empty ? undefined : line;
  }
}
