import { randomBytes } from 'node:crypto';
import { phpSessions, type PhpSessionSettings } from '../../src/php-session.js';
import type { SessionClaims } from '../../src/testing/index.js';
import { phpSerialize } from './php-serialize.js';

const IDLE_SECONDS = 1800;
/** What PHP sessions claim in the session contract suite: PHP's idle rule (to the second), forged ids refused. */
export const PHP_SESSION_CLAIMS: SessionClaims = { idleTimeout: { idleMs: IDLE_SECONDS * 1000, precisionMs: 1000 }, forgery: true };

/**
 * The session contract suite's harness over `phpSessions` with one save handler, on an injected clock
 * starting at `startMs`: `write` stores a session's data under its id as that handler's PHP does (`time`:
 * the clock's Unix time); `forgeries` adds ids of the handler's own that must not read as the session.
 */
export async function phpSessionHarness(
  store: Pick<PhpSessionSettings, 'saveHandler' | 'savePath'> & Partial<PhpSessionSettings>,
  write: (id: string, data: string, time: number) => Promise<void>,
  options: { forgeries?: (id: string) => string[]; startMs?: number } = {},
) {
  let clock = options.startMs ?? Date.UTC(2026, 10, 23, 12, 0, 0);
  const sessions = phpSessions({ ...store, activityKey: 'LAST_ACTIVITY', idleSeconds: IDLE_SECONDS, touch: 'none', now: () => clock });
  await sessions.ready(5_000);
  return {
    async signIn(user: unknown) {
      const id = randomBytes(20).toString('hex').slice(0, 32);
      const time = Math.floor(clock / 1000);
      await write(id, `${user === undefined ? '' : `user|${phpSerialize(user)}`}LAST_ACTIVITY|i:${time};`, time);
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
        `PHPSESSID=${randomBytes(16).toString('hex')}`,
        ...(options.forgeries?.(id) ?? []),
        `OTHER=${id}`,
      ];
    },
    close: () => sessions.close(),
  };
}
