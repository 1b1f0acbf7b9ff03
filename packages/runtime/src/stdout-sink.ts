import { write } from 'node:fs';

/** Where the server log's lines go: stdout, written off the main thread, never able to stall the process. */
export interface StdoutSink {
  /** pino's destination interface. */
  write(line: string): boolean;
  /** Resolves once every line given so far is written or dropped. */
  flush(): Promise<void>;
  /** Lines' bytes dropped because stdout failed (closed pipe, full disk) or its reader fell too far behind. */
  droppedBytes(): number;
}

/**
 * stdout, buffered: a busy server writes its request lines in a few system calls
 * instead of one each (at 4 KiB, and every second). Writes go through libuv's
 * thread pool, so a reader that stopped reading blocks a pool thread, not the
 * event loop, and a signal's time limit still fires. A failed write is dropped and
 * counted, never retried in a loop (pino's own synchronous flush spins forever on
 * a closed pipe); past `maxPendingBytes` new lines are dropped too.
 */
export function stdoutSink({ fd = 1, minBytes = 4096, maxPendingBytes = 8 * 1024 * 1024 } = {}): StdoutSink {
  let pending: string[] = [];
  let pendingBytes = 0;
  let writing = false;
  let broken = false;
  let dropped = 0;
  let waiters: Array<() => void> = [];

  const settle = () => {
    if (writing || pendingBytes > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };

  const writeOut = (data: Buffer, offset: number) => {
    write(fd, data, offset, data.length - offset, null, (error, written) => {
      if (error) {
        dropped += data.length - offset;
        // A closed pipe or descriptor stays closed: stop trying.
        if (error.code === 'EPIPE' || error.code === 'EBADF') broken = true;
      } else if (offset + written < data.length) {
        writeOut(data, offset + written);
        return;
      }
      writing = false;
      // The next write waits for a full buffer (or the timer, or a flush): starting one for whatever arrived
      // meanwhile made a busy server write a few lines at a time, each a round trip through libuv's pool.
      if (pendingBytes >= minBytes || (pendingBytes > 0 && waiters.length > 0)) start();
      else settle();
    });
  };

  const start = () => {
    if (writing || pendingBytes === 0) return;
    const data = Buffer.from(pending.join(''));
    pending = [];
    pendingBytes = 0;
    if (broken) {
      dropped += data.length;
      settle();
      return;
    }
    writing = true;
    writeOut(data, 0);
  };

  setInterval(start, 1_000).unref();

  return {
    write(line) {
      if (broken || pendingBytes + line.length > maxPendingBytes) {
        dropped += Buffer.byteLength(line);
        return true;
      }
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= minBytes) start();
      return true;
    },
    flush() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        start();
        settle();
      });
    },
    droppedBytes: () => dropped,
  };
}
