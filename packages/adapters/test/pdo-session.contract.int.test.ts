import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { missing, pdoSessionTable, serviceUrls, temporaryDirs, testSession, type PdoSessionTable } from '../src/testing/index.js';
import type { SqlEngine } from '../src/activity-log/activity-log-url.js';
import { PHP_SESSION_CLAIMS, phpSessionHarness } from './support/php-session-harness.js';

// session.contract.int.test.ts runs the suite against phpredis and php-memcached; this file, against a PDO session table.
const urls = serviceUrls();
const tempDir = temporaryDirs();

/**
 * Sign-in inserts a row as PdoSessionHandler writes it (sess_lifetime = the expiry's Unix time), in a
 * table of Symfony's schema under a unique name on each engine, dropped after.
 */
describe.each<[SqlEngine, string | undefined]>([
  ['postgres', urls.postgres],
  ['mysql', urls.mysql],
  ['sqlite', 'sqlite'],
])('with a PDO session table on %s', (engine, url) => {
  const skipped = engine !== 'sqlite' && missing(`${engine} (TEST_${engine === 'mysql' ? 'MYSQL' : 'POSTGRES'}_URL)`, url);
  let table: PdoSessionTable;
  beforeAll(async () => {
    if (!skipped) table = await pdoSessionTable(engine, engine === 'sqlite' ? join(tempDir('pdo-contract-'), 'sessions.db') : url!);
  });
  afterAll(() => table?.drop());
  if (skipped) return;

  testSession(
    `PHP sessions, pdo on ${engine}`,
    () =>
      phpSessionHarness(
        { saveHandler: 'pdo', savePath: table.savePath, pdoTable: table.table },
        // Expires a day later: the idle timeout, not the row's expiry, is what the suite moves the clock past.
        (id, data, time) => table.insert(id, data, time + 86_400, time),
        { forgeries: (id) => [`PHPSESSID=${id.toUpperCase()}`, `PHPSESSID=${id}'%20OR%20'1'='1`], startMs: Date.now() },
      ),
    PHP_SESSION_CLAIMS,
  );
});
