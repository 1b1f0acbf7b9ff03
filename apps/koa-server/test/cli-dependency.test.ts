import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

describe("the server's dependency on the CLI, as its package.json explains it", () => {
  it('is declared only for the bundle: no module of the server imports the CLI', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toHaveProperty(['@cotizaciones/cli']);
    expect(manifest['//']).toMatch(/^@cotizaciones\/cli: no module of the server imports it/);
    const sources = readdirSync(join(PACKAGE, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((file) => readFileSync(join(PACKAGE, 'src', file), 'utf8').includes('@cotizaciones/cli'))).toEqual([]);
  });
});
