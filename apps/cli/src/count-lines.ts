import { createReadStream } from 'node:fs';

/** Lines in a file (a last line without a newline counts), read in chunks: the progress display's total. */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    last = chunk[chunk.length - 1] ?? last;
  }
  return last === 10 ? lines : lines + 1;
}
