// Makes the work tree ready to run an app: installs the dependencies and builds the packages it needs,
// or, when nothing they depend on changed since the last time, does neither (a repeat `npm start`,
// `npm run cli` or `npm test` starts at once). Usage: node scripts/ready.mjs [app folder…]; no app
// means every package. Only Node's own modules: it runs before anything is installed.
//
// "Changed" is decided by content: the install by the lockfile and the manifests; a build by each
// package's dist/.source-hash against its src/ (the stamp the build writes), and by the build
// configuration (manifests and tsconfig files).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash } from './source-hash.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const stamps = join(root, 'node_modules', '.ready');

// First runs stay quiet of update boxes and telemetry notices.
// node_modules/.bin first, as under `npm run`: turbo finds pnpm there.
const env = {
  ...process.env,
  PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
  npm_config_update_notifier: 'false',
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
};

/** The workspace's packages by name: folder and the workspace packages it depends on. */
function workspace() {
  const packages = new Map();
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const dir = join(group, entry.name);
      if (!entry.isDirectory() || !existsSync(join(root, dir, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) =>
        name.startsWith('@cotizaciones/'),
      );
      packages.set(manifest.name, { dir, deps });
    }
  }
  return packages;
}

/** The named folders' packages and everything they depend on in the workspace. */
function closure(packages, dirs) {
  const byDir = new Map([...packages].map(([name, p]) => [p.dir, name]));
  const unknown = dirs.filter((dir) => !byDir.has(dir));
  if (unknown.length > 0) throw new Error(`ready: no workspace package in ${unknown.join(', ')}`);
  const wanted = dirs.length === 0 ? [...packages.keys()] : dirs.map((dir) => byDir.get(dir));
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const dep of packages.get(name).deps) visit(dep);
  };
  wanted.forEach(visit);
  return [...seen];
}

function hashFiles(files) {
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : '')
      .update('\0');
  return hash.digest('hex');
}

const stampOf = (name) => (existsSync(join(stamps, name)) ? readFileSync(join(stamps, name), 'utf8') : '');
function writeStamp(name, value) {
  mkdirSync(stamps, { recursive: true });
  writeFileSync(join(stamps, name), value);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const packages = workspace();
const manifests = ['package.json', ...[...packages.values()].map((p) => `${p.dir}/package.json`)];

const installKey = hashFiles(['pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', ...manifests]);
if (!existsSync(join(root, 'node_modules', '.modules.yaml')) || stampOf('install') !== installKey) {
  // pnpm through npx, at the version the project pins: the machine needs only Node and npm.
  run('npx', [
    '-y',
    `pnpm@${rootManifest.devDependencies.pnpm}`,
    'install',
    '--frozen-lockfile',
    '--loglevel=info',
    '--config.confirmModulesPurge=false',
  ]);
  writeStamp('install', installKey);
}

const dirs = process.argv.slice(2).map((dir) => dir.replace(/\/$/, ''));
const names = closure(packages, dirs);
// A package is current when its dist/ was built from its src/ as it is now, under its build configuration as it is now.
const configKey = (name) => {
  const { dir } = packages.get(name);
  return hashFiles([
    'tsconfig.base.json',
    'turbo.json',
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((file) => `${dir}/${file}`),
  ]);
};
const stampName = (name) => `build-${name.replace(/\W/g, '_')}`;
const current = (name) => {
  const { dir } = packages.get(name);
  const stamp = join(root, dir, 'dist', '.source-hash');
  return (
    stampOf(stampName(name)) === configKey(name) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === sourceHash(join(root, dir, 'src'))
  );
};
if (!names.every(current)) {
  run(join(root, 'node_modules', '.bin', 'turbo'), [
    'run',
    'build',
    '--output-logs=errors-only',
    ...names.map((name) => `--filter=${name}`),
  ]);
  for (const name of names) writeStamp(stampName(name), configKey(name));
}
