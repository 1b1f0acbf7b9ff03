import { spawnSync } from 'node:child_process';
import type { SqlEngine } from '../activity-log/activity-log-url.js';
import { missing } from './missing-service.js';
import { phpAvailable } from './php-server.js';

/** The PHP extensions the tests use, each with the Debian package that brings it. */
const DEBIAN_PACKAGES = {
  igbinary: 'php-igbinary',
  memcached: 'php-memcached',
  pdo_mysql: 'php-mysql',
  pdo_pgsql: 'php-pgsql',
  pdo_sqlite: 'php-sqlite3',
  redis: 'php-redis',
} as const;

export type PhpExtension = keyof typeof DEBIAN_PACKAGES;

/** The PDO driver PHP reaches `engine` with. */
export function pdoExtension(engine: SqlEngine): PhpExtension {
  return engine === 'postgres' ? 'pdo_pgsql' : engine === 'mysql' ? 'pdo_mysql' : 'pdo_sqlite';
}

/** The module names a `php -m` listing holds, lower case (PHP prints `PDO`, `Zend OPcache`). */
export function phpModules(listing: string): Set<string> {
  return new Set(
    listing
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line !== '' && !line.startsWith('[')),
  );
}

let installed: Set<string> | undefined;
/** What this machine's `php -m` lists; empty without php. */
function installedModules(): Set<string> {
  installed ??= phpModules(spawnSync('php', ['-m'], { encoding: 'utf8' }).stdout ?? '');
  return installed;
}

/**
 * Whether the tests that need these PHP extensions must be skipped: each absent one is reported as
 * a missing service is (`missing()`), naming its Debian package — so a CI run without, say,
 * php-pgsql fails saying so, where PHP itself would only answer 500. `missingPhp` asks for PHP first.
 */
export function missingPhpExtensions(extensions: PhpExtension[], modules: Set<string> = installedModules()): boolean {
  let absent = false;
  for (const extension of extensions) {
    absent = missing(`PHP's ${extension} extension (Debian's ${DEBIAN_PACKAGES[extension]})`, modules.has(extension)) || absent;
  }
  return absent;
}

/** Whether the tests that need PHP's CLI with these extensions must be skipped (`missing()` for each). */
export function missingPhp(...extensions: PhpExtension[]): boolean {
  return missing('php', phpAvailable()) || missingPhpExtensions(extensions);
}
