import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One second of the process: the longest event-loop delay, GC pause, spool write and fdatasync in it, in ms. */
export interface ProbeSecond {
  readonly at: number;
  readonly loopMaxMs: number;
  readonly gcMaxMs: number;
  readonly gcMs: number;
  readonly writeMaxMs: number;
  readonly writes: number;
  /** Writes that took longer than {@link SLOW_WRITE_MS}. */
  readonly slowWrites: number;
  readonly syncMaxMs: number;
  /** The spool's batches written, the longest one waited from its first append to its write, and how many waited past {@link SLOW_WRITE_MS}. */
  readonly batches: number;
  readonly batchWaitMaxMs: number;
  readonly slowBatches: number;
  /** Of the batches, those written at the turn's end (the loop was busy: decision 047). */
  readonly turnEndBatches: number;
}

/** A spool write this long held every answer of its turn, and the loop: what the tail probe counts. */
export const SLOW_WRITE_MS = 5;

/** Beside the process's spool folder (each bench process has a scratch folder of its own): where the bench finds it. */
export const probeFile = (spool: string) => join(dirname(spool), 'tail-probe.jsonl');

/** What a service's probe saw during one round: its longest stalls, and the seconds its event loop stalled past 100 ms. */
export interface ProbeRound {
  readonly loopMaxMs: number;
  readonly stalledSeconds: number;
  /** Stalled seconds that held a GC pause of 50 ms or more. */
  readonly stalledWithGc: number;
  readonly gcMaxMs: number;
  readonly writeMaxMs: number;
  readonly slowWrites: number;
  readonly syncMaxMs: number;
  readonly batches: number;
  readonly batchWaitMaxMs: number;
  readonly slowBatches: number;
  readonly turnEndBatches: number;
}

const STALL_MS = 100;
const GC_PAUSE_MS = 50;

/** The probe's seconds of process `pid` between `from` and `to` (ms since the epoch); undefined without a probe. */
export function readProbe(pid: number, from: number, to: number): ProbeRound | undefined {
  const spool = /(?:^|\0)ACTIVITY_LOG_SPOOL=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
  if (spool === undefined || !existsSync(probeFile(spool))) return undefined;
  const seconds = readFileSync(probeFile(spool), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ProbeSecond)
    .filter((s) => s.at >= from && s.at <= to + 1000);
  const most = (pick: (s: ProbeSecond) => number) => Math.max(0, ...seconds.map(pick));
  const stalled = seconds.filter((s) => s.loopMaxMs > STALL_MS);
  return {
    loopMaxMs: most((s) => s.loopMaxMs),
    stalledSeconds: stalled.length,
    stalledWithGc: stalled.filter((s) => s.gcMaxMs >= GC_PAUSE_MS).length,
    gcMaxMs: most((s) => s.gcMaxMs),
    writeMaxMs: most((s) => s.writeMaxMs),
    slowWrites: seconds.reduce((sum, s) => sum + s.slowWrites, 0),
    syncMaxMs: most((s) => s.syncMaxMs),
    batches: seconds.reduce((sum, s) => sum + s.batches, 0),
    batchWaitMaxMs: most((s) => s.batchWaitMaxMs),
    slowBatches: seconds.reduce((sum, s) => sum + s.slowBatches, 0),
    turnEndBatches: seconds.reduce((sum, s) => sum + s.turnEndBatches, 0),
  };
}
