// The spool's tail: the service with its spool on and off at one fixed request rate (open loop), in interleaved rounds.
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { measureRound, median, type RoundResult } from './measure.js';
import { spawnServer } from './processes.js';
import { serviceTarget, type RunningTarget } from './targets.js';

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));

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
}

/** One side (spool on or off) at one delay: medians of its rounds, and the spread of p99.9 across them. */
export interface SpoolTailSide {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly p999Min: number;
  readonly p999Max: number;
  readonly cpuUsPerRequest: number;
  readonly requests: number;
  readonly problems: string[];
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

const side = (results: readonly RoundResult[]): SpoolTailSide => {
  const p999s = results.map((r) => r.p999);
  return {
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    p999: median(p999s),
    p999Min: Math.min(...p999s),
    p999Max: Math.max(...p999s),
    cpuUsPerRequest: median(results.map((r) => r.cpuMsPer1000)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    problems: results.flatMap((r) => r.problems),
  };
};

/**
 * The closed-loop rounds drive spool on and off each as fast as it answers, so their tails are taken at
 * different rates; here both are driven at one rate below either's peak, and the order alternates each
 * round so a drift of the shared host hits both alike.
 */
export async function benchSpoolTail(options: SpoolTailOptions, log: (message: string) => void): Promise<SpoolTailRow[]> {
  const rows: SpoolTailRow[] = [];
  const setting = { client: 'got' as const, stores: { kind: 'cookie+sqlite' as const }, nodeArgs: options.nodeArgs };
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
      const results = { on: [] as RoundResult[], off: [] as RoundResult[] };
      const p999Ratios: number[] = [];
      for (let round = 1; round <= options.rounds; round += 1) {
        const order = round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          const result = await load(which === 'on' ? on : off, options.durationS, rate);
          results[which].push(result);
          log(
            `spool tail, ${delayMs} ms, round ${round}: spool ${which}: p99 ${result.p99} ms, p99.9 ${result.p999} ms, ${result.cpuMsPer1000.toFixed(0)} µs CPU a request${result.problems.length ? `, PROBLEMS: ${result.problems.join('; ')}` : ''}`,
          );
        }
        p999Ratios.push((results.on.at(-1)?.p999 ?? 0) / Math.max(1, results.off.at(-1)?.p999 ?? 0));
      }
      rows.push({ delayMs, closedLoopRps, rate, rounds: options.rounds, on: side(results.on), off: side(results.off), p999Ratios });
    } finally {
      await on.stop();
      await off.stop();
      await stub.stop();
    }
  }
  return rows;
}
