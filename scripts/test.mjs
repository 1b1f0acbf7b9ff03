// `npm test`: the tiers in turn, each package's result shown even when another one fails.
//   0. the format check (Prettier, decision 037), and the check that every `*.test.ts` is run by
//      a package script of the tiers below (scripts/orphan-tests.mjs);
//   1. type check, lint and the unit and http tiers of every package (vitest.tiers.ts), packages side by side;
//   2. the int tier (PostgreSQL, MariaDB, Redis, memcached, PHP, redis-server, nginx), packages side by side;
//   3. the slow tier (the built programs as child processes, the browser), one package at a time,
//      alone on the machine: its tests start servers, nginx, php-fpm and Chromium.
// `npm run test:fast` (argument `fast`) runs the unit tier alone: in-process, no service needed.
// Output streams as tests finish; the lines naming a failed test, with the first lines of its error,
// are repeated at the end, where a log cut to its tail (CI's) still shows them.
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOrphanTests } from './orphan-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const turbo = join(root, 'node_modules', '.bin', 'turbo');
// node_modules/.bin first, as under `npm run`: turbo finds pnpm there.
const env = {
  ...process.env,
  PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  // The output is piped through this script: keep a terminal's colours.
  ...(process.stdout.isTTY && process.env.NO_COLOR === undefined ? { FORCE_COLOR: '1' } : {}),
};
const fastOnly = process.argv[2] === 'fast';

const phases = fastOnly
  ? [['unit tier', ['test:fast']]]
  : [
      ['type check, lint, unit and http tiers', ['typecheck', 'lint', 'test']],
      ['int tier', ['test:int']],
      ['slow tier', ['test:slow', '--concurrency=1']],
    ];

const started = performance.now();
const failed = [];
if (!fastOnly) {
  console.log('\ntest: format check (npm run format writes the fixes)');
  const check = spawnSync(join(root, 'node_modules', '.bin', 'prettier'), ['--check', '--log-level=warn', '.'], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (check.status !== 0) failed.push('format check');
}
/** The lines naming a test file no tier runs, repeated at the end. */
const neverRun = [];
if (!fastOnly) {
  console.log('\ntest: every test file runs (scripts/orphan-tests.mjs)');
  try {
    const { orphans, perTier } = await findOrphanTests(
      root,
      phases.map(([, args]) => args),
      env,
    );
    for (const { file, why } of orphans) neverRun.push(`never run: ${file}: ${why}`);
    const counts = Object.entries(perTier)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([tier, count]) => `${tier} ${count}`);
    console.log(`test: test files run per tier: ${counts.join(', ')}; never run: ${orphans.length}`);
  } catch (error) {
    neverRun.push(`the check could not list the test files: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const line of neverRun) console.log(`test: ${line}`);
  if (neverRun.length > 0) failed.push('every test file runs');
}
/** Each failed test's `FAIL` line, and the lines that follow it in its task's output (the error). */
const failedTests = new Map();
const ERROR_LINES = 8;
for (const [name, args] of phases) {
  console.log(`\ntest: ${name}`);
  const status = await runStreaming(turbo, ['run', ...args, '--continue', '--log-order=stream', '--output-logs=new-only']);
  if (status !== 0) failed.push(name);
}
const seconds = Math.round((performance.now() - started) / 1000);
for (const line of neverRun) console.log(`test: ${line}`);
for (const [line, error] of failedTests) {
  console.log(`test: failed: ${line}`);
  for (const errorLine of error) console.log(`test:   ${errorLine}`);
}
console.log(
  `\ntest: ${failed.length === 0 ? 'every tier passed' : `failed in: ${failed.join(', ')}`} (${Math.floor(seconds / 60)} min ${seconds % 60} s)`,
);
process.exit(failed.length === 0 ? 0 : 1);

/** Runs a command with its output passed through as it comes, keeping vitest's `FAIL` lines and what follows them. */
function runStreaming(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
    let partial = '';
    // By turbo's task prefix: the error lines still to keep of the last failed test in that task.
    const errors = new Map();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        // eslint-disable-next-line no-control-regex -- the colours vitest and turbo print
        const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
        const [, task = '', text = plain] = /^(\S+:\s)?(.*)$/.exec(plain) ?? [];
        if (/\bFAIL\b/.test(text)) {
          const error = failedTests.get(plain.trim()) ?? [];
          failedTests.set(plain.trim(), error);
          if (error.length < ERROR_LINES) errors.set(task, error);
        } else if (errors.has(task) && text.trim() !== '') {
          const error = errors.get(task);
          error.push(text.trim());
          if (error.length >= ERROR_LINES) errors.delete(task);
        }
      }
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}
