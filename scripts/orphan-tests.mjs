// The test files `npm test` never runs. Which files run is asked of the tools that run them: turbo
// says which package scripts the tiers' tasks start (`--dry=json`), and vitest lists the files each
// of those scripts runs (`vitest list` with the script's own arguments) — so a package without a
// tier's script, or a file no tier's `include` matches, shows up here, named, not as silence.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Build output, installs and tool caches: nothing there is a test a package owns. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

/** Every `*.test.ts` under `root`, relative to it with `/`, outside the skipped and dot directories. */
export function testFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.test.ts')) {
        found.push(relative(root, join(dir, entry.name)).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return found.sort();
}

/**
 * The files of `files` that no script runs, each with why. `packages`: each workspace package's
 * directory, the vitest scripts `npm test` starts in it (task, command, the files it runs), and
 * the tier each of its files falls in when every tier runs (`tiers`, file → project name).
 */
export function orphans(files, packages) {
  const found = [];
  for (const file of files) {
    const owner = packages.filter((pkg) => file.startsWith(`${pkg.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0];
    if (owner === undefined) {
      found.push({ file, why: 'in no workspace package (pnpm-workspace.yaml)' });
      continue;
    }
    if (owner.scripts.some((script) => script.files.has(file))) continue;
    const tier = owner.tiers.get(file);
    const scripts = owner.scripts.map((script) => `${script.task}: ${script.command}`).join('; ');
    found.push({
      file,
      why:
        owner.scripts.length === 0
          ? `${owner.dir} has no vitest script that npm test runs`
          : tier === undefined
            ? `outside every tier's include (vitest.tiers.ts, ${owner.dir}/vitest.config.ts)`
            : `in the ${tier} tier, which none of ${owner.dir}'s scripts that npm test runs includes (${scripts})`,
    });
  }
  return found;
}

/**
 * The test files under `root` that the turbo tasks `taskArgs` (the tiers' `turbo run` arguments)
 * never run (`orphans`), and how many of those that run fall in each tier (`perTier`). Throws when
 * a task's script runs vitest in a way this cannot read.
 */
export async function findOrphanTests(root, taskArgs, env = process.env) {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  const byDir = new Map();
  for (const args of taskArgs) {
    const { stdout } = await run(bin('turbo'), ['run', ...args, '--dry=json'], { cwd: root, env, maxBuffer: 64 << 20 });
    for (const task of JSON.parse(stdout).tasks) {
      const pkg = byDir.get(task.directory) ?? { dir: task.directory, scripts: [], tiers: new Map() };
      byDir.set(task.directory, pkg);
      const vitestArgs = vitestRunArgs(task.command);
      if (vitestArgs !== undefined) pkg.scripts.push({ task: task.task, command: task.command, args: vitestArgs });
    }
  }
  const list = async (dir, args) => {
    const { stdout } = await run(bin('vitest'), ['list', '--filesOnly', '--json', ...args], {
      cwd: join(root, dir),
      env,
      maxBuffer: 64 << 20,
    });
    return JSON.parse(stdout).map(({ file, projectName }) => [relative(root, file).split(sep).join('/'), projectName]);
  };
  const packages = await Promise.all(
    [...byDir.values()].map(async (pkg) => {
      if (pkg.scripts.length === 0) return pkg;
      const [tiers, ...runs] = await Promise.all([list(pkg.dir, []), ...pkg.scripts.map((script) => list(pkg.dir, script.args))]);
      return {
        dir: pkg.dir,
        tiers: new Map(tiers),
        scripts: pkg.scripts.map((script, i) => ({ ...script, files: new Set(runs[i].map(([file]) => file)) })),
      };
    }),
  );
  const perTier = {};
  for (const pkg of packages)
    for (const [file, tier] of pkg.tiers)
      if (pkg.scripts.some((script) => script.files.has(file))) perTier[tier] = (perTier[tier] ?? 0) + 1;
  return { orphans: orphans(testFiles(root), packages), perTier };
}

/** The arguments after `vitest run` of a script, undefined when it does not run vitest. */
function vitestRunArgs(command) {
  if (!/\bvitest\b/.test(command)) return undefined;
  const match = /^vitest run((?: [\w:=.*/-]+)*)$/.exec(command.trim());
  if (match === null) throw new Error(`cannot tell which test files \`${command}\` runs: a tier's script is \`vitest run [flags]\``);
  return match[1].split(' ').filter((arg) => arg !== '');
}
