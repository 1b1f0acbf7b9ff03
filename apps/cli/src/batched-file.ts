import { closeSync, writeSync } from 'node:fs';

/** Text appended to an open file in batches: one `write` for many lines. */
export interface BatchedFile {
  append(text: string): void;
  /** Writes what is buffered. */
  flush(): void;
  close(): void;
}

/** What is buffered is written once it is this old, or this large, or at a flush. */
const MAX_AGE_MS = 100;
const MAX_CHARS = 64 * 1024;

/**
 * Appends to `fd` a batch at a time. A write goes to the page cache, which outlives the process:
 * what a kill -9 loses is only what was appended since the last write (at most 100 ms of lines).
 * A failed write throws to whoever appended or flushed.
 */
export function batchedFile(fd: number, now: () => number = Date.now): BatchedFile {
  let pending: string[] = [];
  let chars = 0;
  let oldest = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    chars = 0;
    writeSync(fd, text);
  };
  return {
    append(text) {
      if (pending.length === 0) oldest = now();
      pending.push(text);
      chars += text.length;
      if (chars >= MAX_CHARS || now() - oldest >= MAX_AGE_MS) flush();
    },
    flush,
    close() {
      try {
        flush();
      } finally {
        closeSync(fd);
      }
    },
  };
}
