import type { SessionStore } from './session-store.js';

/** Sessions in this process's memory, expiring after their maxAge. */
export function inMemorySessionStore(now: () => number = Date.now): SessionStore {
  const entries = new Map<string, { json: string; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry || entry.expiresAt <= now()) {
        entries.delete(key);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(JSON.parse(entry.json) as unknown);
    },
    set(key, session, maxAge) {
      entries.set(key, { json: JSON.stringify(session), expiresAt: now() + (typeof maxAge === 'number' ? maxAge : 86_400_000) });
      return Promise.resolve();
    },
    destroy(key) {
      entries.delete(key);
      return Promise.resolve();
    },
  };
}
