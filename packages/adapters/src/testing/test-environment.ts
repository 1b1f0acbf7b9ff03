import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesRequired } from './missing-service.js';
import { portAnswers } from './port-answers.js';

/** The real services the suites use, and where they answer on a development machine or in CI. */
const LOCAL_SERVICES = [
  { variable: 'TEST_POSTGRES_URL', name: 'PostgreSQL', url: 'postgres://postgres@127.0.0.1:5432/test', port: 5432 },
  { variable: 'TEST_MYSQL_URL', name: 'MySQL/MariaDB', url: 'mysql://root@127.0.0.1:3306/test', port: 3306 },
  { variable: 'TEST_REDIS_URL', name: 'Redis', url: 'redis://127.0.0.1:6379', port: 6379 },
] as const;

/**
 * Vitest global set-up shared by the packages' suites:
 * - every temporary file or folder of the run goes into one private folder (TMPDIR), removed at the
 *   end, so a run leaves nothing behind in /tmp whatever a test forgets;
 * - a real service whose TEST_* variable is unset is used where it answers on its default local port;
 *   the ones that do not answer are named in one line, and their tests show as skipped; where
 *   services are required (REQUIRE_SERVICES=1 or CI=true, missing-service.ts) the run fails instead.
 */
export async function setupTestEnvironment(label: string): Promise<() => void> {
  const runDir = mkdtempSync(join(tmpdir(), `cotizaciones-${label}-`));
  // Like /tmp, passable by the other users some tests run as (postgres for a private server, nginx's workers).
  chmodSync(runDir, 0o755);
  process.env.TMPDIR = runDir;

  const missing: string[] = [];
  await Promise.all(
    LOCAL_SERVICES.map(async (service) => {
      if (process.env[service.variable]) return;
      if (await portAnswers(service.port)) process.env[service.variable] = service.url;
      else missing.push(`${service.name} (${service.variable} unset, nothing on 127.0.0.1:${service.port})`);
    }),
  );
  if (missing.length > 0 && servicesRequired()) {
    rmSync(runDir, { recursive: true, force: true });
    throw new Error(`[${label}] services the tests require are missing (REQUIRE_SERVICES=1 or CI=true): ${missing.sort().join('; ')}`);
  }
  if (missing.length > 0) console.log(`\n[${label}] tests that need these services are skipped: ${missing.sort().join('; ')}\n`);

  return () => rmSync(runDir, { recursive: true, force: true });
}
