import { readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { phpSessions } from '@cotizaciones/adapters/php-session';
import { holdAsPhp } from '@cotizaciones/adapters/testing';
import { scratchDir } from './scratch-dir.js';

/** What N requests waiting on PHP's file locks cost the instance, while they wait. */
export interface LockWaitersRow {
  readonly waiters: number;
  /** CPU ms the process spent per second of the wait (the polling: a non-blocking flock and an fstat per try). */
  readonly cpuMsPerSecond: number;
  /** Descriptors and heap the waiters held, over the process at rest. */
  readonly descriptors: number;
  readonly heapKb: number;
}

const SIGNED_IN = 'user|a:1:{s:2:"id";i:7;}';
const WINDOW_MS = 1_000;
/** The first reads' wait ends 2 s after they began: the window closes before. */
const WAIT_ENDS_MS = 1_400;

/**
 * N sessions a PHP request holds mid-write (truncated, its lock held from another open file, as a PHP
 * process's), one read of each from its own client: all N wait (the instance-wide bound set to N).
 * Measured over up to WINDOW_MS inside the 2 s wait, then PHP writes and every read is checked signed in.
 */
export async function benchLockWaiters(waiters: number): Promise<LockWaitersRow> {
  const dir = scratchDir('lock-waiters-');
  const ids = Array.from({ length: waiters }, (_, i) => `w${String(i).padStart(25, '0')}`);
  const holders = ids.map((id) => {
    const file = join(dir, `sess_${id}`);
    writeFileSync(file, SIGNED_IN);
    // Truncated as PHP does before a shorter version; the coarse file clock must move past the birth time.
    for (;;) {
      truncateSync(file, 0);
      const stat = statSync(file, { bigint: true });
      if (stat.ctimeNs !== stat.birthtimeNs) break;
    }
    return holdAsPhp(file);
  });
  let waiting = 0;
  const sessions = phpSessions({
    saveHandler: 'files',
    savePath: dir,
    touch: 'none',
    lockWaiters: waiters,
    onLockWaiters: (count) => (waiting = count),
  });
  global.gc?.();
  const descriptorsBefore = readdirSync('/proc/self/fd').length;
  const heapBefore = process.memoryUsage().heapUsed;
  const readsStarted = performance.now();
  const reads = ids.map((id, i) => sessions.sessionFor(`PHPSESSID=${id}`, `10.${i >> 8}.${i & 255}.1`).currentUser());
  while (waiting < waiters) await new Promise((resolve) => setImmediate(resolve));
  const descriptors = readdirSync('/proc/self/fd').length - descriptorsBefore;
  const heapKb = Math.round((process.memoryUsage().heapUsed - heapBefore) / 1024);
  const window = Math.min(WINDOW_MS, WAIT_ENDS_MS - (performance.now() - readsStarted));
  if (window < 100) throw new Error(`${waiters} reads took until their wait's end to start waiting: the machine is too busy to measure`);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, window));
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - started) / 1000;
  if (waiting !== waiters) throw new Error(`${waiting} of ${waiters} reads still waiting: the window outlasted the wait`);
  for (const holder of holders) holder.finish(SIGNED_IN);
  const users = await Promise.all(reads);
  if (users.some((user) => user?.id !== '7')) throw new Error('a waiting read did not end signed in');
  await sessions.close();
  return { waiters, cpuMsPerSecond: Math.round((cpu.user + cpu.system) / 1000 / seconds), descriptors, heapKb };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('requests waiting on PHP file locks (no process per waiter): cost while they wait');
  console.log('waiters | CPU ms per s | descriptors | heap KB');
  for (const waiters of [8, 128, 256]) {
    const row = await benchLockWaiters(waiters);
    console.log(
      `${String(row.waiters).padStart(7)} | ${String(row.cpuMsPerSecond).padStart(12)} | ${String(row.descriptors).padStart(11)} | ${row.heapKb}`,
    );
  }
}
