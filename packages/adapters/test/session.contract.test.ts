import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inMemorySession } from '@cotizaciones/core/testing';
import { phpSessions } from '../src/php-session.js';
import { testSession } from '../src/testing/index.js';
import { phpSerialize } from './support/php-serialize.js';

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
