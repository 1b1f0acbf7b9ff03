import { closeSync, fdatasync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { entryLine, openSpool } from '@cotizaciones/adapters';
import { median } from './measure.js';
import { scratchDir } from './scratch-dir.js';
import { benchEntry } from './writer-bench.js';

export interface SpoolCost {
  /** CPU µs an entry, all threads: the path (below) and its share of a sync. */
  readonly cpuUsPerEntry: number;
  /** An entry appended alone in its turn, waited for as an answer waits, then acknowledged alone (the most a turn can cost: nothing shared), less the same turns without it; least and most over the rounds. */
  readonly pathUs: number;
  readonly pathUsMin: number;
  readonly pathUsMax: number;
  /** One `fdatasync` of what 200 ms bring at the rate, its CPU (the thread pool's included) shared by those entries. */
  readonly syncUsPerEntry: number;
  readonly rounds: number;
}

const TURNS = 5_000;
/** The spool's own sync interval (activity-spool.ts). */
const SYNC_INTERVAL_MS = 200;
const SYNCS = 25;

/**
 * What the spool costs a request at `rate` req/s, apart from everything else the service does. Two
 * identical services differ in CPU per request by more than the 5 % bound on a shared host, and a
 * paced loop's own wake-ups drown the spool's share (decision 046), so the two parts are measured
 * where they are steady: the path on a busy chain of turns, each holding one entry (at a low rate no
 * turn holds more), against the same chain without the spool, in alternating rounds; and the sync,
 * every 200 ms in the service, as many syncs of the bytes 200 ms bring at this rate.
 */
export async function benchSpoolCost(rate: number, rounds: number): Promise<SpoolCost> {
  const spool = openSpool(join(scratchDir('spool-cost-'), 'spool'), { adopt: false, syncIntervalMs: 0 });
  let next = 0;
  const spooled = async () => {
    const appended = spool.append(benchEntry(next++));
    if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
    await appended.written;
    spool.acknowledge([appended.ticket]);
  };
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const paths: number[] = [];
  try {
    // Uncounted: until both chains are compiled, the first round measures the JIT.
    await chain(turn);
    await chain(spooled);
    for (let round = 0; round < rounds; round += 1) {
      const without = await chain(turn);
      const spooling = await chain(async () => {
        await turn();
        await spooled();
      });
      paths.push((spooling - without) / TURNS);
    }
  } finally {
    spool.close();
  }
  const syncUsPerEntry = await syncCost(Math.max(1, Math.round((rate * SYNC_INTERVAL_MS) / 1000)));
  const pathUs = median(paths);
  return {
    cpuUsPerEntry: pathUs + syncUsPerEntry,
    pathUs,
    pathUsMin: Math.min(...paths),
    pathUsMax: Math.max(...paths),
    syncUsPerEntry,
    rounds,
  };
}

/** CPU µs (every thread) of TURNS calls of `step`, one after another. */
async function chain(step: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < TURNS; i += 1) await step();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** The CPU of one fdatasync (in the thread pool, as the spool's) after `lines` entry lines, shared by them. */
async function syncCost(lines: number): Promise<number> {
  const fd = openSync(join(scratchDir('spool-sync-'), 'segment'), 'w', 0o600);
  const line = Buffer.from(entryLine(benchEntry(0)));
  let syncing = 0;
  try {
    for (let i = 0; i < SYNCS; i += 1) {
      for (let j = 0; j < lines; j += 1) writeSync(fd, line);
      const before = process.cpuUsage();
      await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
      const used = process.cpuUsage(before);
      syncing += used.user + used.system;
    }
  } finally {
    closeSync(fd);
  }
  return syncing / SYNCS / lines;
}
