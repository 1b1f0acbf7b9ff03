// The spool's tail: the service with its spool on and off at one fixed request rate (open loop), in interleaved rounds.
import { fileURLToPath } from 'node:url';
import { readProbe, type ProbeRound } from './tail-probe-read.js';
import { runLoad } from './load.js';
import { measureRound, median, type RoundResult } from './measure.js';
import { runDelayMs, spawnServer } from './processes.js';
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

/** One side (spool on or off) at one delay: medians of its rounds, and the spread of p99.9 across them. */
export interface SpoolTailSide {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
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
  /** The spool-off service's closed-loop rate, req/s, and the fixed rate both sides were driven at. */
  readonly closedLoopRps: number;
  readonly rate: number;
  readonly rounds: number;
  readonly on: SpoolTailSide;
  readonly off: SpoolTailSide;
  /** p99.9 on / off, round by round (each round measures both sides back to back). */
  readonly p999Ratios: readonly number[];
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
        syncMaxMs: Math.max(...probes.map((p) => p.syncMaxMs)),
      };

type Round = RoundResult & { readonly runDelayMsPerS: number };

const side = (results: readonly Round[], probes: readonly ProbeRound[]): SpoolTailSide => {
  const p999s = results.map((r) => r.p999);
  return {
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    p999: median(p999s),
    p999Min: Math.min(...p999s),
    p999Max: Math.max(...p999s),
    cpuUsPerRequest: median(results.map((r) => r.cpuMsPer1000)),
    runDelayMsPerS: median(results.map((r) => r.runDelayMsPerS)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    problems: results.flatMap((r) => r.problems),
    probe: sumProbes(probes),
  };
};

/**
 * The closed-loop rounds drive spool on and off each as fast as it answers, so their tails are taken at
 * different rates; here both are driven at one rate below either's peak, and the order alternates each
 * round so a drift of the shared host hits both alike.
 */
export async function benchSpoolTail(options: SpoolTailOptions, log: (message: string) => void): Promise<SpoolTailRow[]> {
  const rows: SpoolTailRow[] = [];
  const nodeArgs = options.probe ? [...options.nodeArgs, `--import=${PROBE}`] : options.nodeArgs;
  const setting = { client: 'got' as const, stores: { kind: 'cookie+sqlite' as const }, nodeArgs };
  for (const delayMs of options.delays) {
    const stub = await spawnServer(STUB, [String(delayMs)], {});
    const on = await serviceTarget(setting).start(stub.url, options.users);
    const off = await serviceTarget({ ...setting, spoolOff: true }).start(stub.url, options.users);
    try {
      const load = (target: RunningTarget, durationS: number, overallRate?: number) =>
        measureRound(target, stub.url, { connections: options.connections, durationS, overallRate });
      for (const target of [on, off])
        await runLoad({
          url: target.process.url,
          cookies: await target.cookies(),
          connections: options.connections,
          durationS: options.warmupS,
        });
      const closedLoopRps = (await load(off, options.durationS)).rps;
      const rate = Math.max(1, Math.round(closedLoopRps * options.rateShare));
      log(
        `spool tail, ${delayMs} ms upstream: spool off answers ${closedLoopRps.toFixed(0)} req/s closed-loop; both driven at ${rate} req/s`,
      );
      const results = { on: [] as Round[], off: [] as Round[] };
      const probes = { on: [] as ProbeRound[], off: [] as ProbeRound[] };
      const p999Ratios: number[] = [];
      for (let round = 1; round <= options.rounds; round += 1) {
        const order = round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          const target = which === 'on' ? on : off;
          const from = Date.now();
          const waitedBefore = runDelayMs(target.process.pid);
          const measured = await load(target, options.durationS, rate);
          const result = { ...measured, runDelayMsPerS: (runDelayMs(target.process.pid) - waitedBefore) / ((Date.now() - from) / 1000) };
          results[which].push(result);
          const probe = readProbe(target.process.pid, from, Date.now());
          if (probe) probes[which].push(probe);
          log(
            `spool tail, ${delayMs} ms, round ${round}: spool ${which}: p99 ${result.p99} ms, p99.9 ${result.p999} ms, ${result.cpuMsPer1000.toFixed(0)} µs CPU a request, waited for a CPU ${result.runDelayMsPerS.toFixed(0)} ms/s${probe ? `; loop stalled ${probe.stalledSeconds} s (${probe.stalledWithGc} with a GC pause), longest ${probe.loopMaxMs.toFixed(0)} ms, GC ${probe.gcMaxMs.toFixed(0)} ms, write ${probe.writeMaxMs.toFixed(1)} ms, fdatasync ${probe.syncMaxMs.toFixed(0)} ms` : ''}${result.problems.length ? `, PROBLEMS: ${result.problems.join('; ')}` : ''}`,
          );
        }
        p999Ratios.push((results.on.at(-1)?.p999 ?? 0) / Math.max(1, results.off.at(-1)?.p999 ?? 0));
      }
      rows.push({
        delayMs,
        closedLoopRps,
        rate,
        rounds: options.rounds,
        on: side(results.on, probes.on),
        off: side(results.off, probes.off),
        p999Ratios,
      });
    } finally {
      await on.stop();
      await off.stop();
      await stub.stop();
    }
  }
  return rows;
}
