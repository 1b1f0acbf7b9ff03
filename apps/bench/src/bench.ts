// pnpm bench: the service beside a bare node:http + undici baseline, measured in one run on loopback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { measureRound, median, type RoundResult } from './measure.js';
import { readOptions, type BenchOptions } from './options.js';
import { memoryMb, spawnServer, type Spawned } from './processes.js';
import { serviceTag, type PeakMemory, type SoakResult, type TargetSummary } from './bench-report.js';
import { machine, writeReport } from './report.js';
import { SERVICE_MAIN, referenceTargets, serviceTarget, type RunningTarget, type Target } from './targets.js';
import { benchFairShare } from './fair-share-bench.js';
import { benchPhpSessions } from './php-session-bench.js';
import { benchWriter, sqliteWriterUrl, type WriterResult } from './writer-bench.js';
import { measureTracingOffCost } from './tracing-off-cost.js';
import { benchCliRounds } from './cli-bench.js';
import { benchSpoolTail, type SpoolTailOptions } from './spool-tail-bench.js';
import { spoolTailLines } from './spool-tail-report.js';

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function targetsFor(options: BenchOptions): Target[] {
  const nodeArgs = options.nodeArgs;
  const targets = [
    ...referenceTargets(nodeArgs),
    serviceTarget({ client: 'got', stores: { kind: 'cookie+sqlite' }, nodeArgs }),
    // The same without its spool: what the spool costs a request, in the same rounds.
    serviceTarget({ client: 'got', stores: { kind: 'cookie+sqlite' }, nodeArgs, spoolOff: true }),
    serviceTarget({ client: 'undici', stores: { kind: 'cookie+sqlite' }, nodeArgs }),
    serviceTarget({ client: 'undici', stores: { kind: 'cookie+sqlite' }, nodeArgs, traced: true }),
  ];
  if (options.candidateMain !== undefined || options.candidateNodeArgs !== undefined) {
    const candidate = {
      stores: { kind: 'cookie+sqlite' as const },
      nodeArgs: options.candidateNodeArgs ?? nodeArgs,
      main: options.candidateMain ?? SERVICE_MAIN,
      candidate: true,
    };
    targets.push(serviceTarget({ client: 'got', ...candidate }), serviceTarget({ client: 'undici', ...candidate }));
  }
  if (options.redisUrl && options.postgresUrl) {
    const stores = { kind: 'redis+postgres' as const, redisUrl: options.redisUrl, postgresUrl: options.postgresUrl };
    targets.push(serviceTarget({ client: 'got', stores, nodeArgs }), serviceTarget({ client: 'undici', stores, nodeArgs }));
  } else {
    log('TEST_REDIS_URL / TEST_POSTGRES_URL unset: skipping the Redis + PostgreSQL targets');
  }
  return targets;
}

async function withStub<T>(delayMs: number, run: (stub: Spawned) => Promise<T>): Promise<T> {
  const stub = await spawnServer(STUB, [String(delayMs)], {});
  try {
    return await run(stub);
  } finally {
    await stub.stop();
  }
}

/** Warm-up, then interleaved rounds: each round measures every target once, so noise hits them alike. */
async function measureDelay(options: BenchOptions, targets: Target[], delayMs: number): Promise<TargetSummary[]> {
  return withStub(delayMs, async (stub) => {
    const running: RunningTarget[] = [];
    for (const target of targets) running.push(await target.start(stub.url, options.users));
    try {
      const load = { connections: options.connections, durationS: options.durationS };
      for (const [i, target] of running.entries()) {
        log(`delay ${delayMs} ms: warming up ${targets[i]?.name}`);
        await runLoad({
          url: target.process.url,
          cookies: await target.cookies(),
          connections: options.connections,
          durationS: options.warmupS,
        });
      }
      const rounds: RoundResult[][] = targets.map(() => []);
      for (let round = 1; round <= options.rounds; round += 1) {
        for (const [i, target] of running.entries()) {
          const result = await measureRound(target, stub.url, load);
          rounds[i]?.push(result);
          log(
            `delay ${delayMs} ms, round ${round}: ${targets[i]?.name}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms${result.problems.length ? `, PROBLEMS: ${result.problems.join('; ')}` : ''}`,
          );
        }
      }
      const medianRps = (role: Target['role']) => median(rounds[targets.findIndex((t) => t.role === role)]?.map((r) => r.rps) ?? []);
      const baselineRps = medianRps('baseline');
      const referenceRps = medianRps('reference');
      return targets.map((target, i) => {
        const results = rounds[i] ?? [];
        const rps = median(results.map((r) => r.rps));
        return {
          target: target.name,
          role: target.role,
          setting: serviceTag(target.setting),
          delayMs,
          rounds: results.length,
          rps,
          ratio: rps / baselineRps,
          referenceRatio: rps / referenceRps,
          p50: median(results.map((r) => r.p50)),
          p99: median(results.map((r) => r.p99)),
          p999: median(results.map((r) => r.p999)),
          cpuMsPer1000: median(results.map((r) => r.cpuMsPer1000)),
          peakRssMb: memoryMb(running[i]?.process.pid ?? 0).peak,
          requests: results.reduce((sum, r) => sum + r.requests, 0),
          problems: results.flatMap((r) => r.problems),
        };
      });
    } finally {
      for (const target of running) await target.stop();
    }
  });
}

/** How long the peak-memory pass waits for an answer. */
const PEAK_TIMEOUT_S = 30;

/** A fresh process per target under many connections: its peak resident memory. */
async function measurePeakMemory(options: BenchOptions, targets: Target[]): Promise<PeakMemory[]> {
  return withStub(0, async (stub) => {
    const results: PeakMemory[] = [];
    for (const target of targets) {
      const running = await target.start(stub.url, options.users);
      try {
        log(`peak memory: ${target.name} at ${options.peakConnections} connections`);
        // A memory measure: an answer may take longer than the rounds' 10 s (a reference without a start
        // budget makes its last-accepted connections wait that long); the slowest answer is reported.
        const load = { connections: options.peakConnections, durationS: Math.max(options.durationS, 10), timeoutS: PEAK_TIMEOUT_S };
        const result = await measureRound(running, stub.url, load);
        results.push({
          target: target.name,
          connections: options.peakConnections,
          peakRssMb: memoryMb(running.process.pid).peak,
          rps: result.rps,
          maxMs: result.max,
          cpuMsPer1000: result.cpuMsPer1000,
          problems: result.problems,
        });
      } finally {
        await running.stop();
      }
    }
    return results;
  });
}

/** Half the measured peak rate for a long time: resident memory should stay flat after the warm-up. */
async function soak(options: BenchOptions, target: Target, peakRps: number): Promise<SoakResult> {
  return withStub(0, async (stub) => {
    const running = await target.start(stub.url, options.users);
    const samples: Array<{ at: number; rss: number }> = [];
    const started = Date.now();
    const sampler = setInterval(() => samples.push({ at: (Date.now() - started) / 1000, rss: memoryMb(running.process.pid).rss }), 5_000);
    try {
      const rate = Math.round(peakRps / 2);
      log(`soak: ${target.name} at ${rate} req/s for ${options.soakS} s`);
      const result = await measureRound(running, stub.url, {
        connections: options.connections,
        durationS: options.soakS,
        overallRate: rate,
      });
      const warm = samples.find((s) => s.at >= Math.min(60, options.soakS / 5))?.rss ?? samples[0]?.rss ?? 0;
      const end = samples.at(-1)?.rss ?? 0;
      return {
        target: target.name,
        seconds: options.soakS,
        rate,
        requests: result.requests,
        rssAfterWarmupMb: warm,
        rssAtEndMb: end,
        growthMb: end - warm,
        problems: result.problems,
      };
    } finally {
      clearInterval(sampler);
      await running.stop();
    }
  });
}

const spoolTailOptions = (options: BenchOptions): SpoolTailOptions => ({
  delays: options.delays,
  rounds: options.spoolTailRounds,
  durationS: options.spoolTailS,
  warmupS: options.warmupS,
  connections: options.connections,
  users: options.users,
  nodeArgs: options.nodeArgs,
  rateShare: options.spoolTailRate,
  probe: options.spoolTailProbe,
});

/** `--spool-tail-only`: the fixed-rate comparison alone, its table on stdout and in `spool-tail.md`. */
async function spoolTailOnly(options: BenchOptions): Promise<void> {
  const rows = await benchSpoolTail(spoolTailOptions(options), log);
  const markdown = `Run ${new Date().toISOString()} on ${machine()}.\n${spoolTailLines(rows).join('\n')}\n`;
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'spool-tail.md'), markdown);
  process.stdout.write(markdown);
  if (rows.some((r) => r.on.problems.length + r.off.problems.length + r.twin.problems.length > 0)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2), process.env);
  if (options.spoolTailOnly) return spoolTailOnly(options);
  const targets = targetsFor(options);
  const summaries: TargetSummary[] = [];
  for (const delay of options.delays) summaries.push(...(await measureDelay(options, targets, delay)));
  const peakMemory = options.peakConnections > 0 ? await measurePeakMemory(options, targets) : [];
  const gotCookie = targets.find((t) => t.role === 'service');
  const gotPeak = summaries.find((s) => s.target === gotCookie?.name && s.delayMs === 0)?.rps;
  const soakResult = options.soak && gotCookie && gotPeak ? await soak(options, gotCookie, gotPeak) : undefined;

  const writer: WriterResult[] = [];
  if (options.writerEntries > 0) {
    log('activity-log writer micro-benchmark');
    writer.push(await benchWriter('SQLite', sqliteWriterUrl(), options.writerEntries));
    if (options.postgresUrl) writer.push(await benchWriter('PostgreSQL', options.postgresUrl, options.writerEntries));
  }

  const phpSessions =
    options.phpReads > 0 || options.phpRounds > 0
      ? await benchPhpSessions(options.phpReads, options.phpRounds, { rounds: options.rounds, durationS: options.durationS }, log)
      : undefined;
  const cli = options.cliLines > 0 ? await benchCliRounds(options.cliLines, options.rounds, log) : undefined;
  log('tracing off: the calls left on the request path');
  const tracingOff = measureTracingOffCost();
  const spoolTail = options.spoolTailRounds > 0 ? await benchSpoolTail(spoolTailOptions(options), log) : [];
  const fairShare = options.fairProbes > 0 ? await benchFairShare(options.fairProbes, log) : undefined;

  const markdown = writeReport(options.out, {
    when: new Date().toISOString(),
    machine: machine(),
    settings: {
      duration: `${options.durationS}s`,
      warmup: `${options.warmupS}s`,
      rounds: options.rounds,
      connections: options.connections,
      users: options.users,
      ...(options.nodeArgs.length ? { 'node args (every server)': options.nodeArgs.join(' ') } : {}),
    },
    targets: summaries,
    peakMemory,
    soak: soakResult,
    writer,
    phpSessions,
    fairShare,
    tracingOff,
    cli,
    spoolTail,
  });
  process.stdout.write(markdown);
  const problems = [
    ...summaries,
    ...peakMemory,
    ...(soakResult ? [soakResult] : []),
    ...(cli ?? []),
    ...(phpSessions?.throughput ?? []),
    ...spoolTail.flatMap((r) => [r.on, r.off]),
  ].flatMap((s) => s.problems);
  if (problems.length > 0) {
    log(`correctness problems: ${problems.length}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
