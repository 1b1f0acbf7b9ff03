import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs quote files and name variables: where a claim can be checked against its source, it is.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

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
    const anchors = (doc: string) => new Set([...read(doc).matchAll(/^#+ (.+)$/gm)].map((match) => match[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')));
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
    const deployed = readdirSync(join(ROOT, 'deploy')).map((file) => read(`deploy/${file}`)).join('\n');
    for (const doc of DOCS) {
      for (const [, quoted] of read(doc).matchAll(/`(proxy_next_upstream(?:_tries)? [^`;]+);?`/g)) expect(deployed, `${doc}: ${quoted}`).toContain(`${quoted};`);
    }
  });

  it("name the container's base image as the Dockerfile has it", () => {
    const images = new Set([...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((match) => match[1]));
    for (const doc of DOCS) {
      for (const [image] of read(doc).matchAll(/node:\d+[\w.-]*-slim/g)) expect(images, `${doc}: ${image}`).toContain(image);
    }
  });

  it('list in docs/configuration.md exactly the variables the configuration reads', () => {
    const schemas = ['apps/koa-server/src/config.ts', 'packages/runtime/src/runtime-config.ts', 'packages/runtime/src/activity-log-config.ts', 'packages/runtime/src/php-session-config.ts', 'packages/runtime/src/session-config.ts', 'packages/runtime/src/tracing-config.ts'];
    const inCode = new Set(schemas.flatMap((file) => [...read(file).matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((match) => match[1]!)));
    const table = read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
    expect(inCode.size).toBeGreaterThan(40);
    expect([...inCode].filter((name) => !table.includes(name)), 'read but not documented').toEqual([]);
    expect(table.filter((name) => !inCode.has(name)), 'documented but not read').toEqual([]);
  });
});
