import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors } from './support/markdown-anchors.js';

// The docs quote files and name variables: where a claim can be checked against its source, it is.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
// The programs' own sources (not the bench's or the test helpers', which read TEST_* variables of their own).
const SOURCES = ['apps/koa-server', 'apps/cli', 'packages/core', 'packages/adapters', 'packages/runtime'].flatMap((pkg) =>
  readdirSync(join(ROOT, pkg, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith('testing'))
    .map((file) => `${pkg}/src/${file}`),
);
/** The repository's files, without what installs and builds make. */
const sourceTree = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (!entry.isDirectory()) return [path];
    return ['node_modules', 'dist', '.git', '.turbo', 'bench-results', 'data'].includes(entry.name) ? [] : sourceTree(path);
  });
const DOCS = [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

describe('the docs', () => {
  it('link only to files of the repository, and each link resolves', () => {
    for (const doc of DOCS) {
      for (const [, target] of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
        expect(target, `${doc} links outside the repository`).not.toMatch(/^[a-z]+:/i);
        const path = target!.split('#')[0]!;
        if (path === '') continue;
        expect(existsSync(resolve(ROOT, dirname(doc), path)), `${doc} → ${target}`).toBe(true);
      }
    }
  });

  it("link to a section only by a heading its target has (GitHub's anchors)", () => {
    const anchors = (doc: string) => headingAnchors(read(doc));
    for (const doc of DOCS) {
      for (const [, target] of read(doc).matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)) {
        const [path, anchor] = target!.split('#') as [string, string];
        const file = path === '' ? doc : join(dirname(doc), path).replace(/^\.\//, '');
        expect(anchors(file), `${doc} → ${target}`).toContain(anchor);
      }
    }
  });

  it('keep BENCHMARKS.md to the method, the current figures and the targets: 250 lines at most', () => {
    expect(read('BENCHMARKS.md').split('\n').length).toBeLessThanOrEqual(251);
  });

  it('quote the nginx recipe as deploy/nginx.conf has it, and only retry settings the deploy files hold', () => {
    expect(read('docs/operations.md')).toContain(read('deploy/nginx.conf').trim());
    // The nginx files: deploy/'s folders (kubernetes/…) hold no nginx settings.
    const deployed = readdirSync(join(ROOT, 'deploy'), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => read(`deploy/${entry.name}`))
      .join('\n');
    for (const doc of DOCS) {
      for (const [, quoted] of read(doc).matchAll(/`(proxy_next_upstream(?:_tries)? [^`;]+);?`/g))
        expect(deployed, `${doc}: ${quoted}`).toContain(`${quoted};`);
    }
  });

  it("name the container's base image as the Dockerfile has it", () => {
    const images = new Set([...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((match) => match[1]));
    for (const doc of DOCS) {
      for (const [image] of read(doc).matchAll(/node:\d+[\w.-]*-slim/g)) expect(images, `${doc}: ${image}`).toContain(image);
    }
  });

  it('list in docs/configuration.md exactly the variables the configuration reads', () => {
    // Every variable is read through a schema handed to `readVariables`; no source reads one by name.
    const schemas = SOURCES.filter((file) => /\breadVariables\(/.test(read(file)) && !file.endsWith('/read-env.ts'));
    for (const file of SOURCES)
      expect(read(file), `${file} reads a variable outside the configuration`).not.toMatch(/process\.env(?:\.|\[['"`])[A-Z]/);
    expect(schemas).toContain('apps/koa-server/src/config.ts');
    const inCode = new Set(schemas.flatMap((file) => [...read(file).matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((match) => match[1]!)));
    const table = read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect(inCode.size).toBeGreaterThan(40);
    expect(
      [...inCode].filter((name) => !table.includes(name)),
      'read but not documented',
    ).toEqual([]);
    expect(
      table.filter((name) => !inCode.has(name)),
      'documented but not read',
    ).toEqual([]);
  });

  it('name only npm scripts the root package.json has', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    for (const doc of DOCS) {
      for (const [, script] of read(doc).matchAll(/npm run ([a-z][\w:-]*)/g))
        expect(scripts, `${doc}: npm run ${script}`).toContain(script);
    }
  });

  it("give the CLI's options and exit codes as its usage text and exitCode() have them", () => {
    const cli = read('docs/cli.md');
    const usage = read('apps/cli/src/cli-args.ts');
    const section = (heading: string) => cli.slice(cli.indexOf(heading)).split('\n## ')[0]!;
    const tableOptions = [...cli.matchAll(/^\| `(--[a-z-]+)/gm)].map((match) => match[1]!);
    const usageOptions = [...usage.matchAll(/^ {2}(--[a-z-]+)/gm)].map((match) => match[1]!);
    expect(tableOptions.sort()).toEqual(usageOptions.sort());
    const documented = [...section('## Exit code').matchAll(/^\| (\d) \|/gm)].map((match) => Number(match[1]));
    const inUsage = [...usage.slice(usage.indexOf('Exit code:')).matchAll(/(?:: |; )(\d) /g)].map((match) => Number(match[1]));
    const decided = [...read('apps/cli/src/exit-code.ts').matchAll(/\): ([\d |]+) \{/g)].flatMap((match) =>
      match[1]!.split('|').map(Number),
    );
    expect(documented).toEqual(inUsage);
    // 2 is decided before a run starts (a usage or configuration error: `fail(2, …)`).
    expect([...decided, 2].sort()).toEqual([...documented].sort());
    expect(read('apps/cli/src/apply-command.ts')).toMatch(/fail\(2, /);
  });

  it("name only the CLI's subcommands and options, as its usage text has them", () => {
    const usage = read('apps/cli/src/cli-args.ts').slice(0, read('apps/cli/src/cli-args.ts').indexOf('`;'));
    const subcommands = new Set([...usage.matchAll(/cotizaciones ([a-z][a-z-]+)/g)].map((match) => match[1]));
    expect([...subcommands].sort()).toEqual(['apply', 'replay-dead-letter']);
    let commands = 0;
    for (const doc of DOCS) {
      // A command line of the CLI: the `cotizaciones` bin (not kubectl's namespace of that name), `npm run cli --` or `npm run activity:replay --`, to the line's end or a code span's.
      for (const [line] of read(doc).matchAll(
        /(?:(?<=^|[\s`]|\.bin\/)(?<!-n )cotizaciones (?!npm )|npm run cli -- |npm run activity:replay -- )[^`\n]*/gm,
      )) {
        commands += 1;
        const subcommand = /^(?:cotizaciones|npm run cli --) ([a-z][\w-]*)/.exec(line)?.[1];
        if (subcommand) expect(subcommands, `${doc}: ${line}`).toContain(subcommand);
        for (const [option] of line.matchAll(/(?<=\s)--[a-z][a-z-]*/g))
          expect(usage, `${doc}: ${line}`).toMatch(new RegExp(`${option}(?![a-z-])`));
      }
    }
    expect(commands).toBeGreaterThan(10);
  });

  it('quote only log messages the service writes, and curl only paths it serves', () => {
    const sources = SOURCES.map(read).join('\n');
    for (const doc of DOCS) {
      // A route's path ends a string in the sources: '/readyz', `${prefix}/dev/login`, webPath: '/cotizaciones/api/….php'.
      for (const [, path] of read(doc).matchAll(/curl [^`\n]*?http:\/\/[^/\s`]+(\/[\w./-]*)/g))
        expect(sources, `${doc}: curl …${path}`).toMatch(new RegExp(`${path!.replace(/[.]/g, '\\.')}['\`]`));
    }
    // The runbooks grep the log for its lines' "msg" (elsewhere, "msg" is the endpoints' reply).
    const messages = [...read('docs/runbooks.md').matchAll(/"msg":"([^"…]+)"/g)].map((match) => match[1]!);
    expect(messages.length).toBeGreaterThan(10);
    for (const message of messages) expect(sources, `docs/runbooks.md: "${message}"`).toContain(`'${message}'`);
  });

  it('give every Prometheus alert a section of docs/runbooks.md: what users notice, what to look at first, the commands, when to escalate', () => {
    const alerts = new Set([...read('deploy/prometheus/alerts.rules.yml').matchAll(/^ {6}- alert: (\w+)$/gm)].map((match) => match[1]!));
    const runbooks = read('docs/runbooks.md');
    const sections = new Map(
      runbooks
        .split(/^## /m)
        .slice(1)
        .map((section) => [section.split('\n')[0]!, section] as const),
    );
    expect(alerts.size).toBeGreaterThanOrEqual(16);
    expect(
      [...sections.keys()].filter((heading) => heading.startsWith('Cotizaciones')).sort(),
      'sections for alerts that do not exist',
    ).toEqual([...alerts].sort());
    for (const alert of alerts) {
      const section = sections.get(alert)!;
      for (const part of ['**Fires when**', '**Users notice**', '**Look first**', '```sh\n', '**Escalate**'])
        expect(section, `docs/runbooks.md, ${alert}: ${part}`).toContain(part);
    }
  });

  it('name only source files the repository has (a path, or a file name found under it)', () => {
    const files = sourceTree('');
    const names = new Set(files.map((file) => file.split('/').pop()));
    for (const doc of DOCS) {
      for (const [, quoted] of read(doc).matchAll(/`([\w./-]+\.(?:ts|mjs|conf|php))`/g)) {
        if (quoted!.startsWith('/') || quoted!.startsWith('*') || quoted!.startsWith('.')) continue;
        const found = quoted!.includes('/')
          ? existsSync(join(ROOT, quoted!)) ||
            existsSync(resolve(ROOT, dirname(doc), quoted!)) ||
            files.some((file) => file.endsWith(`/${quoted}`))
          : names.has(quoted);
        expect(found, `${doc}: ${quoted}`).toBe(true);
      }
    }
  });

  it("list in docs/operations.md's metrics table exactly the metrics the service registers", () => {
    const registered = [...read('apps/koa-server/src/metrics.ts').matchAll(/(?:fromStats(?:Gauge)?\(\s*|name:\s*)'([a-z_]+)'/g)].map(
      (match) => match[1]!,
    );
    const operations = read('docs/operations.md');
    const table = operations.slice(operations.indexOf('| Metric |')).split('\n\n')[0]!;
    const documented = table
      .split('\n')
      .slice(2)
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!));
    expect(registered.length).toBeGreaterThan(10);
    expect(documented.sort()).toEqual(registered.sort());
  });
});
