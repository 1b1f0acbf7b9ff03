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
    storedRequestIds(requestIds) {
      const wanted = new Set(requestIds);
      return Promise.resolve(
        new Set(rows.flatMap((row) => (row.request_id !== null && wanted.has(row.request_id) ? [row.request_id] : []))),
      );
    },
    close: () => Promise.resolve(),
  };
}
