// pnpm bench:profile: where each server's main-thread CPU goes, per request, by part (Node core,
// socket writes, own code, GC, each library), from `node --cpu-prof` under the bench's load.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { spawnServer } from './processes.js';
import { scratchDir } from './scratch-dir.js';
import { referenceTargets, serviceTarget, type Target } from './targets.js';
import { partOf, PARTS, type Part } from './profile-parts.js';

const STUB = fileURLToPath(new URL('./stub-upstream.js', import.meta.url));
/** As `npm start`. */
const NODE_ARGS = ['--heap-growing-percent=50', '--max-semi-space-size=8'];

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '64' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const log = (message: string) => process.stderr.write(`[profile] ${message}\n`);

/** µs of main-thread time per request in each part, counting only the samples taken while the measured load ran. */
async function profile(name: string, target: (nodeArgs: string[]) => Target, stubUrl: string): Promise<Map<Part, number>> {
  const dir = scratchDir('profile-');
  const running = await target([...NODE_ARGS, '--cpu-prof', `--cpu-prof-dir=${dir}`]).start(stubUrl, 256);
  const cookies = await running.cookies();
  log(`${name}: warming up, then ${seconds} s at ${connections} connections`);
  await runLoad({ url: running.process.url, cookies, connections, durationS: 3 });
  // V8's profile clock and process.hrtime are both the system's monotonic clock, in µs here.
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await runLoad({ url: running.process.url, cookies, connections, durationS: seconds });
  const to = Number(process.hrtime.bigint() / 1000n);
  await running.stop();
  // The largest profile is the main thread's (a worker, like the SQLite writer's, writes its own).
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  const profiles = files.map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
  const main = profiles.sort((a, b) => b.samples.length - a.samples.length)[0];
  if (!main) throw new Error(`${name}: no CPU profile was written`);
  const parts = new Map<Part, number>();
  const byId = new Map(main.nodes.map((node) => [node.id, node]));
  let at = main.startTime;
  let inWindow = 0;
  for (const [i, id] of main.samples.entries()) {
    const delta = main.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    inWindow += 1;
    const node = byId.get(id);
    const part = node ? partOf(node.callFrame) : undefined;
    if (part) parts.set(part, (parts.get(part) ?? 0) + delta);
  }
  if (inWindow === 0) throw new Error(`${name}: no sample fell within the measured load`);
  for (const [part, us] of parts) parts.set(part, us / result.requests);
  return parts;
}

async function main(): Promise<void> {
  const stub = await spawnServer(STUB, ['0'], {});
  try {
    const references = (nodeArgs: string[]) => referenceTargets(nodeArgs);
    const columns: Array<[string, (nodeArgs: string[]) => Target]> = [
      ['Fastify reference', (nodeArgs) => references(nodeArgs).find((t) => t.role === 'reference')!],
      ['Koa floor', (nodeArgs) => references(nodeArgs).find((t) => t.role === 'koa-floor')!],
      ['the service, undici', (nodeArgs) => serviceTarget({ client: 'undici', stores: { kind: 'cookie+sqlite' }, nodeArgs })],
    ];
    const results: Array<Map<Part, number>> = [];
    for (const [name, target] of columns) results.push(await profile(name, target, stub.url));
    const cell = (value: number | undefined) => (value === undefined || value < 0.05 ? '–' : value.toFixed(1));
    const lines = [
      `Main thread, µs a request (${connections} connections, 0 ms upstream, ${seconds} s after a 3 s warm-up; idle time left out):`,
      '',
      `| part | ${columns.map(([name]) => name).join(' | ')} |`,
      `|---|${columns.map(() => '---').join('|')}|`,
      ...PARTS.map((part) => `| ${part} | ${results.map((r) => cell(r.get(part))).join(' | ')} |`),
      `| **all of the main thread** | ${results.map((r) => cell([...r.values()].reduce((a, b) => a + b, 0))).join(' | ')} |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stub.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
