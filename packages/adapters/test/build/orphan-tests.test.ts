import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orphans, testFiles, type PackageRuns } from '../../../../scripts/orphan-tests.mjs';
import { temporaryDirs } from '../../src/testing/index.js';

const tempDir = temporaryDirs();

function tree(files: string[]): string {
  const root = tempDir('orphan-tests-');
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

describe('the test files npm test never runs', () => {
  const root = tree([
    'packages/store/test/store.test.ts',
    'packages/store/test/store.process.test.ts',
    'packages/store/src/helper.test.ts',
    'packages/store/node_modules/dep/dep.test.ts',
    'packages/store/dist/store.test.ts',
    'packages/store/.turbo/cache.test.ts',
    'packages/store/test/fixture.ts',
    'apps/bench/test/bench.test.ts',
    'tools/loose.test.ts',
  ]);
  // What turbo and vitest answer for this tree: the store package runs its unit tier only; its slow
  // file falls in a tier no script runs; bench has no vitest script at all.
  const packages: PackageRuns[] = [
    {
      dir: 'packages/store',
      tiers: new Map([
        ['packages/store/test/store.test.ts', 'unit'],
        ['packages/store/test/store.process.test.ts', 'slow'],
      ]),
      scripts: [{ task: 'test', command: 'vitest run --project unit', files: new Set(['packages/store/test/store.test.ts']) }],
    },
    { dir: 'apps/bench', tiers: new Map(), scripts: [] },
  ];

  it('lists every *.test.ts outside node_modules, dist and dot directories', () => {
    expect(testFiles(root)).toEqual([
      'apps/bench/test/bench.test.ts',
      'packages/store/src/helper.test.ts',
      'packages/store/test/store.process.test.ts',
      'packages/store/test/store.test.ts',
      'tools/loose.test.ts',
    ]);
  });

  it('names each file no script runs, with why', () => {
    expect(orphans(testFiles(root), packages)).toEqual([
      { file: 'apps/bench/test/bench.test.ts', why: 'apps/bench has no vitest script that npm test runs' },
      {
        file: 'packages/store/src/helper.test.ts',
        why: "outside every tier's include (vitest.tiers.ts, packages/store/vitest.config.ts)",
      },
      {
        file: 'packages/store/test/store.process.test.ts',
        why: "in the slow tier, which none of packages/store's scripts that npm test runs includes (test: vitest run --project unit)",
      },
      { file: 'tools/loose.test.ts', why: 'in no workspace package (pnpm-workspace.yaml)' },
    ]);
  });

  it('names none when a script runs each file', () => {
    const files = ['packages/store/test/store.test.ts', 'packages/store/test/store.process.test.ts'];
    const slow = { task: 'test:slow', command: 'vitest run --project slow', files: new Set([files[1] ?? '']) };
    const everyTier = packages.map((pkg) => (pkg.dir === 'packages/store' ? { ...pkg, scripts: [...pkg.scripts, slow] } : pkg));
    expect(orphans(files, everyTier)).toEqual([]);
  });
});
