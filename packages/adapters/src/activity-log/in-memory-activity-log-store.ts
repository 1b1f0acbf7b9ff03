import { toStoredActivity, type ReadableActivityLogStore, type StoredActivity } from './activity-log-store.js';

/** A store that keeps rows in memory (`ACTIVITY_LOG_URL=memory:`): lost when the process ends. */
export function inMemoryActivityLogStore(): ReadableActivityLogStore {
  const rows: StoredActivity[] = [];
  return {
    write(entries) {
      rows.push(...entries.map(toStoredActivity));
      return Promise.resolve();
    },
    ping: () => Promise.resolve(),
    recent: (limit) => Promise.resolve(rows.slice(-limit).reverse()),
    close: () => Promise.resolve(),
  };
}
