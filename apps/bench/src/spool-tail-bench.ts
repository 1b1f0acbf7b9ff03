// The spool's tail: the service with its spool on and off at one fixed request rate (open loop), in interleaved rounds.
import { fileURLToPath } from 'node:url';
import { readProbe, SLOW_WRITE_MS, type ProbeRound } from './tail-probe-read.js';
import { runLoad } from './load.js';
import { measureRound, median, type RoundResult } from './measure.js';
import { pooled, quantile } from './quantile.js';
import { runDelayMs, spawnServer, type Spawned } from './processes.js';
import { benchSpoolCost, type SpoolCost } from './spool-cost.js';
import { serviceTarget, type RunningTarget } from './targets.js';

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
const PROBE = new URL('./tail-probe.js', import.meta.url).href;

export interface SpoolTailOptions {
  readonly delays: readonly number[];
  readonly rounds: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly users: number;
  readonly nodeArgs: readonly string[];
  /** The fixed rate, as a share of the spool-off service's closed-loop rate measured just before. */
  readonly rateShare: number;
  /** Preload tail-probe.js into both sides: their event-loop stalls, GC pauses, spool writes and fdatasyncs. */
  readonly probe: boolean;
}

/**
 * One side (spool on or off) at one delay: its latencies over every round, pooled (the rounds run at
 * one rate for one length, so each counts alike; p99.9 of the pool rests on ten times the answers of
 * one round's), and the spread of p99.9 across the rounds.
 */
export interface SpoolTailSide {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  /** The least and most of the rounds' own p99.9s. */
  readonly p999Min: number;
  readonly p999Max: number;
  readonly cpuUsPerRequest: number;
  /** Its main thread's wait for a CPU while runnable, ms per second of the round (median): what the shared host took from it. */
  readonly runDelayMsPerS: number;
  readonly requests: number;
  readonly problems: string[];
  /** With the probe: over all rounds, the stalled seconds (and how many held a GC pause), the longest of each stall. */
  readonly probe: ProbeRound | undefined;
}

export interface SpoolTailRow {
  readonly delayMs: number;
  /** The spool-off service's closed-loop rate, req/s, and the fixed rate every side was driven at. */
  readonly closedLoopRps: number;
  readonly rate: number;
  readonly rounds: number;
  readonly on: SpoolTailSide;
  readonly off: SpoolTailSide;
  /** A second spool-off service, identical to `off`: how far two equal services differ on this host (the noise floor). */
  readonly twin: SpoolTailSide;
  /** p99.9 on / off and twin / off, round by round (each round drives the three at once). */
  readonly p999Ratios: readonly number[];
  readonly twinP999Ratios: readonly number[];
  /** The spool's own work at the same rate, measured apart (spool-cost.ts): its share of `off`'s CPU per request. */
  readonly spoolCost: SpoolCost;
}

const sumProbes = (probes: readonly ProbeRound[]): ProbeRound | undefined =>
  probes.length === 0
    ? undefined
    : {
        loopMaxMs: Math.max(...probes.map((p) => p.loopMaxMs)),
        stalledSeconds: probes.reduce((sum, p) => sum + p.stalledSeconds, 0),
        stalledWithGc: probes.reduce((sum, p) => sum + p.stalledWithGc, 0),
        gcMaxMs: Math.max(...probes.map((p) => p.gcMaxMs)),
        writeMaxMs: Math.max(...probes.map((p) => p.writeMaxMs)),
        slowWrites: probes.reduce((sum, p) => sum + p.slowWrites, 0),
        syncMaxMs: Math.max(...probes.map((p) => p.syncMaxMs)),
        batches: probes.reduce((sum, p) => sum + p.batches, 0),
        batchWaitMaxMs: Math.max(...probes.map((p) => p.batchWaitMaxMs)),
        slowBatches: probes.reduce((sum, p) => sum + p.slowBatches, 0),
        turnEndBatches: probes.reduce((sum, p) => sum + p.turnEndBatches, 0),
      };

type Round = RoundResult & { readonly runDelayMsPerS: number };

const side = (results: readonly Round[], probes: readonly ProbeRound[]): SpoolTailSide => {
  const p999s = results.map((r) => r.p999);
  const all = pooled(results.map((r) => r.latencies ?? new Float64Array()));
  return {
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    p999: quantile(all, 0.999),
    p999Min: Math.min(...p999s),
    p999Max: Math.max(...p999s),
    cpuUsPerRequest: median(results.map((r) => r.cpuMsPer1000)),
    runDelayMsPerS: median(results.map((r) => r.runDelayMsPerS)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    problems: results.flatMap((r) => r.problems),
    probe: sumProbes(probes),
  };
};

const SIDES = ['on', 'off', 'twin'] as const;
type Side = (typeof SIDES)[number];

/**
 * The closed-loop rounds drive spool on and off each as fast as it answers, so their tails are taken at
 * different rates; here each side is driven at one fixed rate (paced-load.ts), and the sides run at the
 * same time, each with a stub upstream of its own: a stall of the shared host, which alone moves a
 * side's p99.9 several-fold between rounds, then falls on all of them at once. The twin, a second
 * spool-off service, measures what still separates two equal services: a ratio inside its spread says
 * nothing about the spool.
 */
export async function benchSpoolTail(options: SpoolTailOptions, log: (message: string) => void): Promise<SpoolTailRow[]> {
  const rows: SpoolTailRow[] = [];
  const nodeArgs = options.probe ? [...options.nodeArgs, `--import=${PROBE}`] : options.nodeArgs;
  const setting = { client: 'got' as const, stores: { kind: 'cookie+sqlite' as const }, nodeArgs };
  for (const delayMs of options.delays) {
    const stubs: Partial<Record<Side, Spawned>> = {};
    const targets: Partial<Record<Side, RunningTarget>> = {};
    try {
      for (const which of SIDES) {
        const stub = (stubs[which] = await spawnServer(STUB, [String(delayMs)], {}));
        targets[which] = await serviceTarget({ ...setting, spoolOff: which !== 'on' }).start(stub.url, options.users);
      }
      const load = (which: Side, durationS: number, overallRate?: number) =>
        measureRound(targets[which]!, stubs[which]!.url, { connections: options.connections, durationS, overallRate });
      // Every side gets the same warm-up and closed loop (one at a time): a service given less of it
      // costs more per request than an identical one, and has a longer tail (decision 046).
      for (const which of SIDES)
        await runLoad({
          url: targets[which]!.process.url,
          cookies: await targets[which]!.cookies(),
          connections: options.connections,
          durationS: options.warmupS,
        });
      const closedLoop: Record<Side, number> = { on: 0, off: 0, twin: 0 };
      for (const which of SIDES) closedLoop[which] = (await load(which, options.durationS)).rps;
      const rate = Math.max(1, Math.round(closedLoop.off * options.rateShare));
      log(
        `spool tail, ${delayMs} ms upstream: closed-loop req/s on ${closedLoop.on.toFixed(0)}, off ${closedLoop.off.toFixed(0)}, twin ${closedLoop.twin.toFixed(0)}; each driven at ${rate} req/s, the three at once`,
      );
      // One round at the fixed rate, not counted: the spool's side ran its first one or two slower.
      await Promise.all(SIDES.map((which) => load(which, options.durationS, rate)));
      const results: Record<Side, Round[]> = { on: [], off: [], twin: [] };
      const probes: Record<Side, ProbeRound[]> = { on: [], off: [], twin: [] };
      const p999Ratios: number[] = [];
      const twinP999Ratios: number[] = [];
      for (let round = 1; round <= options.rounds; round += 1) {
        const from = Date.now();
        const waitedBefore = SIDES.map((which) => runDelayMs(targets[which]!.process.pid));
        const measured = await Promise.all(SIDES.map((which) => load(which, options.durationS, rate)));
        for (const [i, which] of SIDES.entries()) {
          const pid = targets[which]!.process.pid;
          const probe = readProbe(pid, from, Date.now());
          if (probe) probes[which].push(probe);
          // The probe finds the spool's write by its name: a rename would leave the batch columns at 0 unnoticed.
          const unseen =
            which === 'on' && probe?.batches === 0 ? ["the tail probe saw no spool batch (activity-spool.ts's `write` renamed?)"] : [];
          const result = {
            ...measured[i]!,
            runDelayMsPerS: (runDelayMs(pid) - waitedBefore[i]!) / ((Date.now() - from) / 1000),
            problems: [...measured[i]!.problems, ...unseen],
          };
          results[which].push(result);
          log(
            `spool tail, ${delayMs} ms, round ${round}: ${which}: p99 ${result.p99.toFixed(1)} ms, p99.9 ${result.p999.toFixed(1)} ms, ${result.cpuMsPer1000.toFixed(0)} µs CPU a request, waited for a CPU ${result.runDelayMsPerS.toFixed(0)} ms/s, the driver sent ${result.sendLagMax?.toFixed(1) ?? '?'} ms late at most${probe ? `; loop stalled ${probe.stalledSeconds} s (${probe.stalledWithGc} with a GC pause), longest ${probe.loopMaxMs.toFixed(0)} ms, GC ${probe.gcMaxMs.toFixed(0)} ms, write ${probe.writeMaxMs.toFixed(1)} ms (${probe.slowWrites} past ${SLOW_WRITE_MS} ms), fdatasync ${probe.syncMaxMs.toFixed(0)} ms, ${probe.batches} batches (${probe.turnEndBatches} at a turn's end) waited for their write ${probe.batchWaitMaxMs.toFixed(1)} ms at most (${probe.slowBatches} past ${SLOW_WRITE_MS} ms)` : ''}${result.problems.length ? `, PROBLEMS: ${result.problems.join('; ')}` : ''}`,
          );
        }
        const p999 = (which: Side) => results[which].at(-1)?.p999 ?? 0;
        p999Ratios.push(p999('on') / Math.max(1, p999('off')));
        twinP999Ratios.push(p999('twin') / Math.max(1, p999('off')));
      }
      const spoolCost = await benchSpoolCost(rate, 5);
      log(
        `spool tail, ${delayMs} ms: the spool's own work at ${rate} req/s, measured apart: ${spoolCost.cpuUsPerEntry.toFixed(1)} µs CPU an entry (its path ${spoolCost.pathUs.toFixed(1)}, ${spoolCost.pathUsMin.toFixed(1)}–${spoolCost.pathUsMax.toFixed(1)}; its share of a sync ${spoolCost.syncUsPerEntry.toFixed(1)})`,
      );
      rows.push({
        delayMs,
        spoolCost,
        closedLoopRps: closedLoop.off,
        rate,
        rounds: options.rounds,
        on: side(results.on, probes.on),
        off: side(results.off, probes.off),
        twin: side(results.twin, probes.twin),
        p999Ratios,
        twinP999Ratios,
      });
    } finally {
      for (const which of SIDES) {
        await targets[which]?.stop();
        await stubs[which]?.stop();
      }
    }
  }
  return rows;
}
