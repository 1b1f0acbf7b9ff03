import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, paramNames } from '@cotizaciones/core';

// What cannot derive from the operations catalog (config files, prose) is checked against it: each
// failure names the file to update (docs/recipes.md, "Add an operation").
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the files that list the operations by hand', () => {
  it('deploy/nginx.conf sends every operation of the catalog, and nothing else, to the service', () => {
    const conf = read('deploy/nginx.conf');
    const locations = [...conf.matchAll(/^\s*location ~ (\S+) \{/gm)].map((match) => new RegExp(match[1]!));
    for (const { webPath } of OPERATIONS) {
      expect(
        locations.some((location) => location.test(webPath)),
        `deploy/nginx.conf (quoted in docs/operations.md): no location takes ${webPath}`,
      ).toBe(true);
    }
    const served = (path: string) => locations.some((location) => location.test(path));
    expect(served('/cotizaciones/api/other.php'), 'deploy/nginx.conf: a location takes more than the catalog').toBe(false);
    const alternatives = conf.match(/\(([\w|]+)\)\\\.php\$/)?.[1]?.split('|') ?? [];
    expect(alternatives.sort(), 'deploy/nginx.conf (quoted in docs/operations.md): the location lists exactly the catalog').toEqual(
      OPERATIONS.map(({ webPath }) => webPath.replace(/^.*\/|\.php$/g, '')).sort(),
    );
  });

  it('deploy/nginx-strangler.conf has one exact location per operation of the catalog', () => {
    const exact = [...read('deploy/nginx-strangler.conf').matchAll(/^\s*location = (\S+) \{/gm)].map((match) => match[1]);
    expect(exact.sort(), 'deploy/nginx-strangler.conf: one `location = <webPath>` per operation').toEqual(
      OPERATIONS.map(({ webPath }) => webPath).sort(),
    );
  });

  it("docs/contract.md's table of endpoints and its list of parameters name every operation as the catalog has it", () => {
    const contract = read('docs/contract.md');
    for (const operation of OPERATIONS) {
      const where = `docs/contract.md, operation ${operation.name}`;
      expect(contract, `${where}: its path`).toContain(`\`{BASE_PATH}${operation.webPath}\``);
      expect(contract, `${where}: its upstream`).toContain(`\`POST {UPSTREAM_BASE_URL}${operation.upstreamPath}\``);
      expect(contract, `${where}: its default failure message`).toContain(`\`${operation.defaultMsg}\``);
      expect(contract, `${where}: its parameters, in the catalog's order`).toContain(`\`${paramNames(operation).join(' ')}\``);
    }
  });

  it("docs/cli.md's table of operations has a row per operation, naming each of its columns", () => {
    const lines = read('docs/cli.md').split('\n');
    const header = lines.findIndex((line) => line.trim() === '| `operation` | Columns |');
    expect(header, 'docs/cli.md: the table of operations (| `operation` | Columns |)').toBeGreaterThan(-1);
    const end = lines.findIndex((line, index) => index > header + 1 && !line.trim().startsWith('|'));
    const rows = lines.slice(header + 2, end);
    for (const operation of OPERATIONS) {
      const row = rows.find((line) => line.trim().startsWith(`| \`${operation.lineName}\``));
      expect(row, `docs/cli.md: no row for the operation ${operation.lineName}`).toBeDefined();
      for (const param of paramNames(operation))
        expect(row, `docs/cli.md, operation ${operation.lineName}: column ${param}`).toContain(`\`${param}\``);
    }
    expect(rows.length, 'docs/cli.md: a row for an operation the catalog does not have').toBe(OPERATIONS.length);
  });
});
