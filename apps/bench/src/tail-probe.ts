// Preloaded (`--import`) into a service by `npm run bench -- --spool-tail-probe`: what stalls its event loop, second by second.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { probeFile, SLOW_WRITE_MS, type ProbeSecond } from './tail-probe-read.js';

const spool = process.env.ACTIVITY_LOG_SPOOL;
if (spool !== undefined) {
  const out = probeFile(spool);
  const append = fs.appendFileSync;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const fresh = () => ({
    gcMaxMs: 0,
    gcMs: 0,
    writeMaxMs: 0,
    writes: 0,
    slowWrites: 0,
    syncMaxMs: 0,
    batchWaitMaxMs: 0,
    batches: 0,
    slowBatches: 0,
    turnEndBatches: 0,
  });
  let second = fresh();
  // How long the spool's batch waits between its first append and its write (activity-spool.ts's `write`, queued by
  // queueMicrotask, or by setImmediate for the turn's end): what the batch's first answer waits for beyond the write itself.
  const timed = (callback: (...args: never[]) => unknown, atTurnEnd: boolean) => {
    if (callback.name !== 'write') return callback;
    const scheduled = performance.now();
    return (...args: never[]) => {
      const waited = performance.now() - scheduled;
      second.batches += 1;
      if (atTurnEnd) second.turnEndBatches += 1;
      if (waited > SLOW_WRITE_MS) second.slowBatches += 1;
      second.batchWaitMaxMs = Math.max(second.batchWaitMaxMs, waited);
      return callback(...args);
    };
  };
  const setImmediateOriginal = globalThis.setImmediate;
  globalThis.setImmediate = ((callback: (...args: never[]) => unknown, ...args: never[]) =>
    setImmediateOriginal(timed(callback, true), ...args)) as unknown as typeof setImmediate;
  const queueMicrotaskOriginal = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (callback: () => void) => queueMicrotaskOriginal(timed(callback, false));
  // The spool's write per batch and its fdatasync (the thread pool's, timed to its callback): wrapped, and the wrappers made what `import { writeSync } from 'node:fs'` binds.
  const writeSync = fs.writeSync;
  fs.writeSync = function timedWriteSync(this: unknown, ...args: Parameters<typeof writeSync>) {
    const started = performance.now();
    try {
      return Reflect.apply<unknown, Parameters<typeof writeSync>, number>(writeSync, this, args);
    } finally {
      const took = performance.now() - started;
      second.writes += 1;
      if (took > SLOW_WRITE_MS) second.slowWrites += 1;
      second.writeMaxMs = Math.max(second.writeMaxMs, took);
    }
  } as typeof writeSync;
  const fdatasync = fs.fdatasync;
  fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const started = performance.now();
    fdatasync(fd, (error) => {
      second.syncMaxMs = Math.max(second.syncMaxMs, performance.now() - started);
      callback(error);
    });
  }) as typeof fdatasync;
  syncBuiltinESMExports();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      second.gcMs += entry.duration;
      second.gcMaxMs = Math.max(second.gcMaxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(() => {
    const line: ProbeSecond = { at: Date.now(), loopMaxMs: delay.max / 1e6, ...second };
    append(out, `${JSON.stringify(line)}\n`);
    delay.reset();
    second = fresh();
  }, 1000).unref();
}
