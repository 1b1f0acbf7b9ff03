import { fileURLToPath } from 'node:url';
import type { TestProjectInlineConfiguration, ViteUserConfig } from 'vitest/config';

/**
 * The test tiers, named by a file's suffix, the same in every package:
 * - `unit`: `*.test.ts` and `*.contract.test.ts` (a port's suite against its in-process adapters),
 *   in this process only: vitest.unit-guard.ts fails a test that starts a process or connects to a
 *   socket no server of its own listens on. `npm run test:fast`;
 * - `http`: `*.http.test.ts`, an app on a port in this process, in this process only too (the same
 *   guard): no Redis, database, nginx or process beside it;
 * - `int`: `*.int.test.ts`, in-process code against real things: PostgreSQL, MariaDB, Redis,
 *   memcached, PHP (the app beside `php -S`), redis-server, nginx in front of the app, chattr;
 * - `slow`: `*.process.test.ts` and `*.e2e.test.ts`, the built programs as child processes, nginx, a
 *   browser.
 * `npm test` runs unit and http side by side, then int, then slow one package at a time.
 */
const HTTP = ['test/**/*.http.test.ts'];
const INT = ['test/**/*.int.test.ts'];
const SLOW = ['test/**/*.process.test.ts', 'test/**/*.e2e.test.ts'];
const IN_PROCESS_GUARD = fileURLToPath(new URL('./vitest.unit-guard.ts', import.meta.url));

type Shared = NonNullable<TestProjectInlineConfiguration['test']>;

/**
 * A package's `test` configuration: the four tiers as vitest projects, `shared` on each (a root
 * globalSetup would run once more around each tier's own). A package without a tier's files passes it.
 */
export function testTiers(shared: Shared): NonNullable<ViteUserConfig['test']> {
  const tier = (name: string, include: string[], exclude: string[] = [], setupFiles: string[] = []): TestProjectInlineConfiguration => ({
    test: { ...shared, name, include, exclude, setupFiles: [...setupFiles, ...toArray(shared.setupFiles)] },
  });
  return {
    passWithNoTests: true,
    projects: [
      tier('unit', ['test/**/*.test.ts'], [...HTTP, ...INT, ...SLOW], [IN_PROCESS_GUARD]),
      tier('http', HTTP, [], [IN_PROCESS_GUARD]),
      tier('int', INT),
      tier('slow', SLOW),
    ],
  };
}

function toArray(files: string | string[] | undefined): string[] {
  return files === undefined ? [] : typeof files === 'string' ? [files] : files;
}
