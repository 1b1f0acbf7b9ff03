import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt } from '@cotizaciones/adapters/build';
import { median, upstreamCalls } from './measure.js';
import { spawnServer } from './processes.js';
import { scratchDir } from './scratch-dir.js';

const CLI_MAIN = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
/** The packages the CLI's dist/main.js is built from. */
const CLI_PACKAGES = ['../../cli', '../../../packages/runtime', '../../../packages/adapters', '../../../packages/core'];
const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
const CPU_REPORT = fileURLToPath(new URL('./cpu-report.js', import.meta.url));
const CLIENT_ALONE = fileURLToPath(new URL('./client-alone.js', import.meta.url));

/** The CLI's upstream client: got (the default) and undici, measured in the same rounds to show the client's share. */
export type CliClient = 'got' | 'undici';
const CLIENTS: readonly CliClient[] = ['got', 'undici'];

export interface CliSummary {
  readonly client: CliClient;
  readonly lines: number;
  readonly concurrency: number;
  readonly delayMs: number;
  readonly rounds: number;
  readonly linesPerSecond: number;
  readonly boundPerSecond: number;
  /** CPU ms per line, the start-up (a one-line run's CPU) taken out. */
  readonly cpuMsPerLine: number;
  /** CPU ms of a one-line run: Node, the modules, the SQLite worker. */
  readonly startupCpuMs: number;
  /** The client alone sending as many calls in the same shape (`client-alone.ts`): CPU ms per call, its start-up taken out. */
  readonly clientAloneCpuMsPerCall: number;
  readonly problems: string[];
}

/**
 * `rounds` rounds; in each, with every client in turn, a run of `lines` lines at `--concurrency 16`
 * against a 20 ms upstream beside a one-line run (the start-up): medians per client.
 */
export async function benchCliRounds(lines: number, rounds: number, log: (line: string) => void): Promise<CliSummary[]> {
  // Measuring a build of other sources would report on code that is no longer there.
  assertBuilt(
    CLI_PACKAGES.map((dir) => fileURLToPath(new URL(dir, import.meta.url))),
    "the CLI's build",
  );
  const runs = new Map<CliClient, CliRun[]>(CLIENTS.map((client) => [client, []]));
  const startups = new Map<CliClient, number[]>(CLIENTS.map((client) => [client, []]));
  const alone = new Map<CliClient, number[]>(CLIENTS.map((client) => [client, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const client of CLIENTS) {
      const startup = await benchCli(1, 16, 20, client);
      const run = await benchCli(lines, 16, 20, client);
      startups.get(client)!.push(startup.cpuMsPerLine);
      const net = {
        ...run,
        cpuMsPerLine: run.cpuMsPerLine - startup.cpuMsPerLine / lines,
        problems: [...startup.problems, ...run.problems],
      };
      runs.get(client)!.push(net);
      const clientAlone = (await clientAloneCpuMs(lines, 16, 20, client)) - (await clientAloneCpuMs(1, 16, 20, client));
      alone.get(client)!.push(clientAlone / lines);
      log(
        `cli (${client}), round ${round}: ${run.linesPerSecond.toFixed(0)} lines/s, ${net.cpuMsPerLine.toFixed(3)} ms CPU per line, start-up ${startup.cpuMsPerLine.toFixed(0)} ms; ${client} alone ${(clientAlone / lines).toFixed(3)} ms a call`,
      );
    }
  }
  return CLIENTS.map((client) => {
    const mine = runs.get(client)!;
    return {
      client,
      lines,
      concurrency: 16,
      delayMs: 20,
      rounds,
      linesPerSecond: median(mine.map((run) => run.linesPerSecond)),
      boundPerSecond: mine[0]?.boundPerSecond ?? 0,
      cpuMsPerLine: median(mine.map((run) => run.cpuMsPerLine)),
      startupCpuMs: median(startups.get(client)!),
      clientAloneCpuMsPerCall: median(alone.get(client)!),
      problems: mine.flatMap((run) => run.problems),
    };
  });
}

export interface CliRun {
  readonly lines: number;
  readonly concurrency: number;
  readonly delayMs: number;
  /** Lines a second, start to exit. */
  readonly linesPerSecond: number;
  /** What the upstream's delay allows: `concurrency` lines every `delayMs`. */
  readonly boundPerSecond: number;
  /** The CLI process's CPU time (every thread) per line, ms. */
  readonly cpuMsPerLine: number;
  readonly problems: string[];
}

/** The client alone (`client-alone.ts`): its process's CPU ms for `calls` calls against an upstream that answers after `delayMs`. */
async function clientAloneCpuMs(calls: number, concurrency: number, delayMs: number, client: CliClient): Promise<number> {
  const stub = await spawnServer(STUB, [String(delayMs)], {});
  try {
    const run = await runMeasured(scratchDir('client-alone-'), [CLIENT_ALONE, client, stub.url, String(calls), String(concurrency)], {});
    if (run.code !== 0) throw new Error(`client-alone (${client}) exit ${run.code}: ${run.stderr.trim()}`);
    return run.cpuMs;
  } finally {
    await stub.stop();
  }
}

/** A Node process run to its exit with the CPU report preloaded: its exit code, the end of its stderr, and its CPU ms (every thread). */
async function runMeasured(
  dir: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; cpuMs: number }> {
  const cpuFile = join(dir, 'cpu');
  const child = spawn(process.execPath, ['--import', CPU_REPORT, ...args], {
    env: { PATH: process.env.PATH, ...env, BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr, cpuMs: Number(readFileSync(cpuFile, 'utf8')) };
}

/**
 * The bulk CLI applying `lines` changes with the given client and a SQLite activity log,
 * against an upstream that answers after `delayMs`: how close it comes to the bound the upstream's
 * latency sets, and its CPU per line.
 */
async function benchCli(lines: number, concurrency: number, delayMs: number, client: CliClient): Promise<CliRun> {
  const dir = scratchDir('cli-');
  const input = join(dir, 'changes.csv');
  const rows = Array.from({ length: lines }, (_, i) => `quotation,${i + 1},estado,aprobada,,,`);
  writeFileSync(input, `operation,id,field,value,idEmpresa,idUsuario,delete\n${rows.join('\n')}\n`);
  const stub = await spawnServer(STUB, [String(delayMs)], {});
  try {
    const before = await upstreamCalls(stub.url);
    const started = performance.now();
    const { code, stderr, cpuMs } = await runMeasured(dir, [CLI_MAIN, 'apply', input, '--as', '7', '--concurrency', String(concurrency)], {
      UPSTREAM_CLIENT: client,
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: 'bench-token',
      ACTIVITY_LOG_URL: `sqlite:${join(dir, 'activity.db')}`,
    });
    const seconds = (performance.now() - started) / 1000;
    const calls = (await upstreamCalls(stub.url)) - before;
    const results = readFileSync(`${input}.results.csv`, 'utf8').split('\n').slice(1).filter(Boolean);
    const problems: string[] = [];
    if (code !== 0) problems.push(`exit ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`);
    if (calls !== lines) problems.push(`${calls} upstream calls for ${lines} lines`);
    const applied = results.filter((row) => row.split(',')[1] === 'ok').length;
    if (applied !== lines) problems.push(`${applied} of ${lines} lines ok`);
    return {
      lines,
      concurrency,
      delayMs,
      linesPerSecond: lines / seconds,
      boundPerSecond: (concurrency * 1000) / delayMs,
      cpuMsPerLine: cpuMs / lines,
      problems,
    };
  } finally {
    await stub.stop();
  }
}
