import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingPhpExtensions, pdoExtension, phpModules } from '../src/testing/index.js';

// A `php -m` listing as Debian's php-cli prints it, without php-pgsql.
const LISTING = `[PHP Modules]
Core
igbinary
PDO
pdo_mysql
pdo_sqlite
redis
session

[Zend Modules]
Zend OPcache
`;

describe('missingPhpExtensions(): a PHP extension checked as a service is', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("reads `php -m`'s module names, lower case, without its section headings", () => {
    expect([...phpModules(LISTING)]).toEqual(['core', 'igbinary', 'pdo', 'pdo_mysql', 'pdo_sqlite', 'redis', 'session', 'zend opcache']);
  });

  it('names the PDO driver of each engine', () => {
    expect(['postgres', 'mysql', 'sqlite'].map((engine) => pdoExtension(engine as 'postgres'))).toEqual([
      'pdo_pgsql',
      'pdo_mysql',
      'pdo_sqlite',
    ]);
  });

  it('runs the tests when every extension they need is there', () => {
    vi.stubEnv('REQUIRE_SERVICES', '1');
    expect(missingPhpExtensions(['pdo_sqlite', 'redis', 'igbinary'], phpModules(LISTING))).toBe(false);
  });

  it('fails under REQUIRE_SERVICES=1, naming the extension and its Debian package', () => {
    vi.stubEnv('REQUIRE_SERVICES', '1');
    expect(() => missingPhpExtensions(['redis', 'pdo_pgsql'], phpModules(LISTING))).toThrow(
      /^PHP's pdo_pgsql extension \(Debian's php-pgsql\) is missing, and REQUIRE_SERVICES=1/,
    );
  });

  it("skips with a one-line notice per absent extension on a developer's machine", () => {
    vi.stubEnv('REQUIRE_SERVICES', '');
    vi.stubEnv('CI', '');
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(missingPhpExtensions(['memcached', 'igbinary', 'pdo_pgsql'], phpModules(LISTING))).toBe(true);
    expect(log.mock.calls.map(([line]) => String(line))).toEqual([
      "[skipped] PHP's memcached extension (Debian's php-memcached) is missing: its tests are skipped (REQUIRE_SERVICES=1 fails them instead)",
      "[skipped] PHP's pdo_pgsql extension (Debian's php-pgsql) is missing: its tests are skipped (REQUIRE_SERVICES=1 fails them instead)",
    ]);
  });
});
