import type { TestProjectInlineConfiguration, ViteUserConfig } from 'vitest/config';

/**
 * The test tiers, named by a file's suffix, the same in every package:
 * - `unit`: `*.test.ts` and `*.contract.test.ts` (a port's suite against each adapter, real services
 *   included): `npm run test:fast`;
 * - `http`: `*.http.test.ts`, an app on a port in this process (and real PHP beside it);
 * - `slow`: `*.process.test.ts` and `*.e2e.test.ts`, the built programs as child processes, nginx, a
 *   browser: `npm test` runs them last, one package at a time.
 */
const HTTP = ['test/**/*.http.test.ts'];
const SLOW = ['test/**/*.process.test.ts', 'test/**/*.e2e.test.ts'];

type Shared = NonNullable<TestProjectInlineConfiguration['test']>;

/**
 * A package's `test` configuration: the three tiers as vitest projects, `shared` on each (a root
 * globalSetup would run once more around each tier's own). A package without a tier's files passes it.
 */
export function testTiers(shared: Shared): NonNullable<ViteUserConfig['test']> {
  const tier = (name: string, include: string[], exclude: string[] = []): TestProjectInlineConfiguration => ({
    test: { ...shared, name, include, exclude },
  });
  return { passWithNoTests: true, projects: [tier('unit', ['test/**/*.test.ts'], [...HTTP, ...SLOW]), tier('http', HTTP), tier('slow', SLOW)] };
}
