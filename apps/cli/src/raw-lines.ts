import { createReadStream } from 'node:fs';

/** One line of a file as bytes (without its `\n` or `\r\n`), or a line longer than the bound, never held. */
export type RawLine = { readonly line: number; readonly bytes: Buffer } | { readonly line: number; readonly tooLong: number };

/**
 * The lines of a file, numbered from 1, read in chunks: memory holds at most `maxBytes` of one line.
 * A longer line is reported by its number and length, and skipped to its end.
 */
export async function* rawLines(path: string, maxBytes: number): AsyncGenerator<RawLine> {
  let line = 1;
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  const end = (): RawLine | undefined => {
    const done: RawLine = skipping ? { line, tooLong: size } : { line, bytes: stripCr(Buffer.concat(parts, size)) };
    parts = [];
    size = 0;
    skipping = false;
    line += 1;
    return done;
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let newline = chunk.indexOf(10); ; newline = chunk.indexOf(10, from)) {
      const upTo = newline === -1 ? chunk.length : newline;
      size += upTo - from;
      if (!skipping && size > maxBytes) {
        skipping = true;
        parts = [];
      }
      if (!skipping && upTo > from) parts.push(chunk.subarray(from, upTo));
      if (newline === -1) break;
      yield end()!;
      from = newline + 1;
    }
  }
  if (size > 0 || parts.length > 0) yield end()!;
}

const stripCr = (bytes: Buffer) => (bytes[bytes.length - 1] === 13 ? bytes.subarray(0, -1) : bytes);
