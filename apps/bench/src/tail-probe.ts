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
  let second = { gcMaxMs: 0, gcMs: 0, writeMaxMs: 0, writes: 0, slowWrites: 0, syncMaxMs: 0 };
  // The spool's one write per turn and its fdatasync (the thread pool's, timed to its callback): wrapped, and the wrappers made what `import { writeSync } from 'node:fs'` binds.
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
    second = { gcMaxMs: 0, gcMs: 0, writeMaxMs: 0, writes: 0, slowWrites: 0, syncMaxMs: 0 };
  }, 1000).unref();
}
