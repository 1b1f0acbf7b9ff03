import type { RecordSessionStore } from './session-store.js';

/** Session records in this process's memory, expiring after their time to live (one instance only: for tests). */
export function inMemorySessionStore(now: () => number = Date.now): RecordSessionStore {
  const entries = new Map<string, { json: string; expiresAt: number }>();
  return {
    kind: 'records',
    get(id) {
      const entry = entries.get(id);
      if (!entry || entry.expiresAt <= now()) {
        entries.delete(id);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(JSON.parse(entry.json) as unknown);
    },
    set(id, record, ttlMs) {
      entries.set(id, { json: JSON.stringify(record), expiresAt: now() + ttlMs });
      return Promise.resolve();
    },
    destroy(id) {
      entries.delete(id);
      return Promise.resolve();
    },
    ready: () => Promise.resolve(),
    ping: () => Promise.resolve(),
    describe: () => 'in memory',
    close: () => Promise.resolve(),
  };
}
