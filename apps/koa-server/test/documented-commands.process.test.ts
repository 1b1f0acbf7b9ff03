import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleBuild } from '@cotizaciones/adapters/build';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The README's commands, run as a newcomer would: in a fresh clone (of the last commit), with no
 * node_modules and none of this test run's variables. Each one installs what it needs first.
 */
describe('the documented commands, from a fresh clone', () => {
  let dir: string;
  let clone: string;
  // Only what a user's shell would have: no variables of the npm/turbo run this test may be part of.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TURBO_') && !name.startsWith('npm_') && name !== 'CI'),
  );
  const npm = (...args: string[]) => spawnSync('npm', args, { cwd: clone, env, encoding: 'utf8', timeout: 240_000 });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
    clone = join(dir, 'repo');
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  });
  // A clone with its installed packages: tens of thousands of files to remove on a busy disk.
  afterAll(() => rmSync(dir, { recursive: true, force: true }), 120_000);

  it('npm run build installs first, showing the install, then builds every package', () => {
    const run = npm('run', 'build');
    expect(run.status, run.stderr).toBe(0);
    // pnpm's own report of the install is visible (a first install takes a while)…
    expect(run.stdout).toMatch(/Packages: \+\d+|Progress: resolved \d+/);
    // …and nothing else's: no update box, no telemetry notice.
    expect(run.stdout + run.stderr).not.toMatch(/update available|new (major|minor|patch) version|telemetry|npm notice/i);
    for (const built of ['packages/core', 'packages/adapters', 'packages/runtime', 'apps/koa-server', 'apps/cli', 'apps/bench']) {
      expect(existsSync(join(clone, built, 'dist')), built).toBe(true);
    }
  }, 300_000);

  it('npm run bundle writes a directory the server starts from, with no warning', () => {
    const out = join(dir, 'bundle');
    const run = npm('run', 'bundle', '--', out);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/WARN/);
    expect(existsSync(join(out, 'dist/main.js'))).toBe(true);
  }, 300_000);

  it('npm run bench -- --help and npm run activity:replay answer', () => {
    const bench = npm('run', 'bench', '--', '--help');
    expect(bench.status, bench.stderr).toBe(0);
    expect(bench.stdout).toContain('--rounds');
    const replay = spawnSync('npm', ['run', 'activity:replay'], {
      cwd: clone,
      env: { ...env, ACTIVITY_LOG_URL: `sqlite:${join(dir, 'activity.db')}`, ACTIVITY_LOG_DEAD_LETTER: join(dir, 'none.jsonl') },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(replay.status, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/replay-dead-letter: .* 0 written, 0 still refused/);
  }, 300_000);

  it("npm run cli -- apply <file> --as <user> --dry-run shows each line's request; stdout carries only the tool's output", () => {
    const changes = join(dir, 'changes.csv');
    writeFileSync(changes, 'operation,id,field,value,delete\nquotation,12,estado,aprobada,\nitem,32,,,1\n');
    const run = npm('run', '-s', 'cli', '--', 'apply', changes, '--as', '7', '--dry-run');
    expect(run.status, run.stderr).toBe(0);
    // The rows as they come, then the summary.
    expect(run.stdout.trim().split('\n').at(-1)).toBe(`dry run: 2 dry-run; results in ${changes}.dry-run.csv`);
    expect(run.stdout).toContain('3,dry-run,"POST /api/cotizaciones/items/update {""id"":""32"",""delete"":1}"');
    // Nothing changed since: the repeat neither installs nor builds (no pnpm, no turbo), and answers the same.
    const again = npm('run', '-s', 'cli', '--', 'apply', changes, '--as', '7', '--dry-run');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/Scope: |Packages: |Tasks: |turbo/);
    expect(again.stdout).toBe(run.stdout);
  }, 300_000);

  it('a changed source is rebuilt before the next command runs it', () => {
    const main = join(clone, 'packages/core/src/index.ts');
    writeFileSync(main, `${readFileSync(main, 'utf8')}\n`);
    const run = npm('run', '-s', 'cli', '--', '--help');
    expect(run.stderr).toMatch(/Running build/);
    expect(staleBuild(join(clone, 'packages/core'))).toBeUndefined();
  }, 300_000);
});
