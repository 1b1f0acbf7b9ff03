// pnpm bench:profile: where each server's main-thread CPU goes, per request, by part (Node core,
// socket writes, own code, GC, each library), from `node --cpu-prof` under the bench's load (`--rate R`: at R req/s,
// sent evenly; `--spool`: the got service with its spool off and on, instead of the references).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { cpuMs, spawnServer } from './processes.js';
import { scratchDir } from './scratch-dir.js';
import { referenceTargets, serviceTarget, type Target } from './targets.js';
import { OWN_CODE, partOf, PARTS, type Part } from './profile-parts.js';

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
/** Rows of the service's own-code table; the rest are summed in one. */
const OWN_MODULES_SHOWN = 15;
/** As `npm start`. */
const NODE_ARGS = ['--heap-growing-percent=50', '--max-semi-space-size=8'];

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    rate: { type: 'string', default: '0' },
    spool: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
/** Requests per second, sent evenly; 0: as fast as each server answers. */
const overallRate = Number(values.rate);
const log = (message: string) => process.stderr.write(`[profile] ${message}\n`);

interface Profiled {
  /** µs of main-thread time per request in each part. */
  readonly parts: Map<Part, number>;
  /** µs per request, from the kernel's count: the main thread, and the process's other threads (V8's garbage-collection and compiler helpers, the SQLite writer, libuv's pool). */
  readonly mainThread: number;
  readonly otherThreads: number;
  /** µs per request of the worker threads' profiles (the service's SQLite writer), not idle. */
  readonly workers: number;
  /** µs of main-thread time per request in each module of the project's own code. */
  readonly ownModules: Map<string, number>;
}

/** The non-idle µs of a profile's samples within [from, to], by what `key` makes of each sample's frame (undefined: not counted). */
function timeWithin<K>(
  profile: CpuProfile,
  from: number,
  to: number,
  key: (frame: CpuProfile['nodes'][number]['callFrame']) => K | undefined,
): Map<K, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<K, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    const frame = byId.get(id)?.callFrame;
    const k = frame && frame.functionName !== '(idle)' ? key(frame) : undefined;
    if (k !== undefined) totals.set(k, (totals.get(k) ?? 0) + delta);
  }
  return totals;
}

/** A module of the project's own, as its path in the repository. */
const ownModule = (url: string) => /\/((?:apps|packages)\/.+)$/.exec(url)?.[1] ?? url;

/** Where a server's CPU went per request, counting only what was spent while the measured load ran. */
async function profile(name: string, target: (nodeArgs: string[]) => Target, stubUrl: string): Promise<Profiled> {
  const dir = scratchDir('profile-');
  const running = await target([...NODE_ARGS, '--cpu-prof', `--cpu-prof-dir=${dir}`]).start(stubUrl, 256);
  const cookies = await running.cookies();
  log(`${name}: warming up, then ${seconds} s at ${connections} connections${overallRate ? `, ${overallRate} req/s` : ''}`);
  await runLoad({ url: running.process.url, cookies, connections, durationS: 3, overallRate });
  // V8's profile clock and process.hrtime are both the system's monotonic clock, in µs here.
  const { pid } = running.process;
  const [processBefore, mainBefore] = [cpuMs(pid), cpuMs(pid, pid)];
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await runLoad({ url: running.process.url, cookies, connections, durationS: seconds, overallRate });
  const to = Number(process.hrtime.bigint() / 1000n);
  const mainMs = cpuMs(pid, pid) - mainBefore;
  const otherMs = cpuMs(pid) - processBefore - mainMs;
  await running.stop();
  // The largest profile is the main thread's (a worker, like the SQLite writer's, writes its own).
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  const profiles = files.map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
  const [main, ...workers] = profiles.sort((a, b) => b.samples.length - a.samples.length);
  if (!main) throw new Error(`${name}: no CPU profile was written`);
  const parts = timeWithin(main, from, to, partOf);
  if (parts.size === 0) throw new Error(`${name}: no sample fell within the measured load`);
  const ownModules = timeWithin(main, from, to, (frame) => (partOf(frame) === OWN_CODE ? ownModule(frame.url) : undefined));
  const perRequest = <K>(totals: Map<K, number>) => new Map([...totals].map(([k, us]) => [k, us / result.requests] as const));
  const workerUs = workers.map((worker) => timeWithin(worker, from, to, () => true).get(true) ?? 0).reduce((a, b) => a + b, 0);
  return {
    parts: perRequest(parts),
    mainThread: (mainMs * 1000) / result.requests,
    otherThreads: (otherMs * 1000) / result.requests,
    workers: workerUs / result.requests,
    ownModules: perRequest(ownModules),
  };
}

async function main(): Promise<void> {
  const stub = await spawnServer(STUB, ['0'], {});
  try {
    const references = (nodeArgs: string[]) => referenceTargets(nodeArgs);
    const service = (spoolOff: boolean) => (nodeArgs: string[]) =>
      serviceTarget({ client: 'got', stores: { kind: 'cookie+sqlite' }, nodeArgs, spoolOff });
    // --spool: where the spool's own CPU goes, the same service with it off and on (its own code last).
    const columns: Array<[string, (nodeArgs: string[]) => Target]> = values.spool
      ? [
          ['the service, got, spool off', service(true)],
          ['the service, got, spool on', service(false)],
        ]
      : [
          ['Fastify reference', (nodeArgs) => references(nodeArgs).find((t) => t.role === 'reference')!],
          ['Koa floor', (nodeArgs) => references(nodeArgs).find((t) => t.role === 'koa-floor')!],
          ['the service, undici', (nodeArgs) => serviceTarget({ client: 'undici', stores: { kind: 'cookie+sqlite' }, nodeArgs })],
        ];
    const results: Profiled[] = [];
    for (const [name, target] of columns) results.push(await profile(name, target, stub.url));
    const cell = (value: number | undefined) => (value === undefined || value < 0.05 ? '–' : value.toFixed(1));
    const lines = [
      `µs a request (${connections} connections${overallRate ? ` at ${overallRate} req/s` : ''}, 0 ms upstream, ${seconds} s after a 3 s warm-up; idle time left out): the main thread by part from its CPU profile, then each thread group from the kernel:`,
      '',
      `| part | ${columns.map(([name]) => name).join(' | ')} |`,
      `|---|${columns.map(() => '---').join('|')}|`,
      ...PARTS.map((part) => `| ${part} | ${results.map((r) => cell(r.parts.get(part))).join(' | ')} |`),
      `| **all of the main thread** | ${results.map((r) => cell([...r.parts.values()].reduce((a, b) => a + b, 0))).join(' | ')} |`,
      `| the main thread, as the kernel counts it (the profiler's cost included) | ${results.map((r) => cell(r.mainThread)).join(' | ')} |`,
      `| **the other threads**, as the kernel counts them (V8's garbage-collection and compiler helpers, the profiler's own thread, workers) | ${results.map((r) => cell(r.otherThreads)).join(' | ')} |`,
      `| of which workers, from their own profiles (the service's SQLite writer) | ${results.map((r) => cell(r.workers)).join(' | ')} |`,
    ];
    const last = results.at(-1)!;
    const modules = [...last.ownModules].sort((a, b) => b[1] - a[1]);
    const shown = modules.slice(0, OWN_MODULES_SHOWN);
    const rest = modules.slice(OWN_MODULES_SHOWN).reduce((sum, [, us]) => sum + us, 0);
    lines.push(
      '',
      `${columns.at(-1)![0]}: its own code on the main thread, µs a request by module:`,
      '',
      '| module | µs a request |',
      '|---|---|',
      ...shown.map(([module, us]) => `| ${module} | ${cell(us)} |`),
      `| ${modules.length - shown.length} other modules | ${cell(rest)} |`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stub.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
