import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inMemorySession } from '@cotizaciones/core/testing';
import { phpSessions } from '../src/php-session.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { deleteRedisKeys, freePort, memcachedProcess, serviceUrls, testSession, type MemcachedProcess } from '../src/testing/index.js';

// The in-memory adapter holds a value, not a stored session: nothing expires, nothing can be forged.
testSession('in-memory', () =>
  Promise.resolve({
    signIn: (user: unknown) => Promise.resolve({ user }),
    currentUser: (ref: { user: unknown } | undefined) => inMemorySession(ref?.user).currentUser(),
  }),
);

const IDLE_SECONDS = 1800;

/**
 * The PHP app's own sessions (files handler), on an injected clock: sign-in writes `sess_<id>` as PHP
 * would, with the PHP app's activity key; a request carries the PHPSESSID cookie. The service only
 * reads here (touch `none`): renewing the activity time is the PHP app's own step, so not claimed.
 */
testSession(
  'PHP sessions, files',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'php-sess-contract-'));
    let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      activityKey: 'LAST_ACTIVITY',
      idleSeconds: IDLE_SECONDS,
      // Far beyond the idle time: the file's own age (real time) never decides here.
      gcMaxLifetimeSeconds: 10 * 365 * 86_400,
      touch: 'none',
      now: () => clock,
    });
    return {
      async signIn(user: unknown) {
        const id = randomBytes(20).toString('hex').slice(0, 32);
        const vars = user === undefined ? '' : `user|${phpSerialize(user)}`;
        await writeFile(join(dir, `sess_${id}`), `${vars}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`, { mode: 0o600 });
        return `theme=dark; PHPSESSID=${id}`;
      },
      currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
      advance(ms: number) {
        clock += ms;
      },
      forge(cookie: string) {
        const id = cookie.slice(cookie.indexOf('PHPSESSID=') + 'PHPSESSID='.length);
        const last = id.at(-1) === 'a' ? 'b' : 'a';
        return [
          `PHPSESSID=${id.slice(0, -1)}${last}`, // one character changed: an id never issued
          `PHPSESSID=${id}0`, // one character more
          `PHPSESSID=${randomBytes(16).toString('hex')}`, // a well-formed guess
          `PHPSESSID=..%2F${id}`, // a path instead of an id
          `OTHER=${id}`, // the id under another cookie's name
        ];
      },
      async close() {
        await sessions.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
);

/**
 * The same through phpredis's handler: sign-in writes `<prefix><id>` with SETEX gc_maxlifetime, as
 * PHP does; the service reads it over its own connection.
 */
const redisUrl = serviceUrls().redis;
describe.skipIf(!redisUrl)('with phpredis', () => {
  const prefix = `test:php-contract:${randomBytes(4).toString('hex')}:`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl ?? '');
  });
  afterAll(async () => {
    redis.disconnect();
    await deleteRedisKeys(redisUrl ?? '', prefix);
  });

  testSession(
    'PHP sessions, phpredis',
    async () => {
      let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
      const { hostname, port } = new URL(redisUrl ?? '');
      const sessions = phpSessions({
        saveHandler: 'redis',
        savePath: `tcp://${hostname}:${port || 6379}?prefix=${encodeURIComponent(prefix)}`,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: IDLE_SECONDS,
        touch: 'none',
        now: () => clock,
      });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const vars = user === undefined ? '' : `user|${phpSerialize(user)}`;
          await redis.setex(`${prefix}${id}`, 1440, `${vars}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [`PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`, `PHPSESSID=${randomBytes(16).toString('hex')}`, `OTHER=${id}`];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});

/**
 * The same through php-memcached's handler: sign-in sets `memc.sess.key.<id>` with expiry gc_maxlifetime,
 * as PHP does, on a memcached of the suite's own (it fails without one: .ci/run installs it).
 */
describe('with php-memcached', () => {
  let memcached: MemcachedProcess;
  beforeAll(async () => {
    memcached = memcachedProcess(await freePort());
    await memcached.start();
  });
  afterAll(async () => {
    await memcached.stop();
    memcached.remove();
  });

  testSession(
    'PHP sessions, php-memcached',
    async () => {
      let clock = Date.UTC(2026, 10, 23, 12, 0, 0);
      const sessions = phpSessions({ saveHandler: 'memcached', savePath: memcached.address, activityKey: 'LAST_ACTIVITY', idleSeconds: IDLE_SECONDS, touch: 'none', now: () => clock });
      await sessions.ready(5_000);
      return {
        async signIn(user: unknown) {
          const id = randomBytes(20).toString('hex').slice(0, 32);
          const data = Buffer.from(`${user === undefined ? '' : `user|${phpSerialize(user)}`}LAST_ACTIVITY|i:${Math.floor(clock / 1000)};`);
          const reply = await memcached.send(Buffer.concat([Buffer.from(`set memc.sess.key.${id} 0 1440 ${data.length}\r\n`), data, Buffer.from('\r\n')]));
          if (reply !== 'STORED\r\n') throw new Error(`memcached answered ${reply}`);
          return `PHPSESSID=${id}`;
        },
        currentUser: (cookie: string | undefined) => sessions.sessionFor(cookie).currentUser(),
        advance(ms: number) {
          clock += ms;
        },
        forge(cookie: string) {
          const id = cookie.slice('PHPSESSID='.length);
          return [`PHPSESSID=${id.slice(0, -1)}${id.at(-1) === 'a' ? 'b' : 'a'}`, `PHPSESSID=${randomBytes(16).toString('hex')}`, `PHPSESSID=lock.${id}`, `OTHER=${id}`];
        },
        close: () => sessions.close(),
      };
    },
    { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true },
  );
});

/** PHP's serialize() for the JSON-like values the suite stores (strings by byte length). */
function phpSerialize(value: unknown): string {
  if (value === null || value === undefined) return 'N;';
  if (typeof value === 'boolean') return `b:${value ? 1 : 0};`;
  if (typeof value === 'number') return Number.isInteger(value) ? `i:${value};` : `d:${value};`;
  if (typeof value === 'string') return `s:${Buffer.byteLength(value)}:"${value}";`;
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
  const body = entries.map(([key, item]) => (typeof key === 'number' ? `i:${key};` : phpSerialize(key)) + phpSerialize(item)).join('');
  return `a:${entries.length}:{${body}}`;
}
