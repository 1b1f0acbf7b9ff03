import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { phpSessions } from '../src/php-session.js';
import { missing, pdoSessionTable, serviceUrls, temporaryDirs, testSession, type PdoSessionTable } from '../src/testing/index.js';
import type { SqlEngine } from '../src/activity-log/activity-log-url.js';
import { phpSerialize } from './support/php-serialize.js';

// session.contract.int.test.ts runs the suite against phpredis and php-memcached; this file, against a PDO session table.
const IDLE_SECONDS = 1800;
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
    async () => {
      let clock = Date.now();
      const sessions = phpSessions({
        saveHandler: 'pdo',
        savePath: table.savePath,
        pdoTable: table.table,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: IDLE_SECONDS,
        touch: 'none',
        now: () => clock,
      });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const time = Math.floor(clock / 1000);
          const data = `${user === undefined ? '' : `user|${phpSerialize(user)}`}LAST_ACTIVITY|i:${time};`;
          // Expires a day later: the idle timeout, not the row's expiry, is what the suite moves the clock past.
          await table.insert(id, data, time + 86_400, time);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [
            `PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`,
            `PHPSESSID=${id.toUpperCase()}`,
            `PHPSESSID=${randomBytes(16).toString('hex')}`,
            `PHPSESSID=${id}'%20OR%20'1'='1`,
            `OTHER=${id}`,
          ];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});
