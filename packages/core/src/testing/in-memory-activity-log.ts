import type { ActivityEntry, ActivityLog } from '../ports/activity-log.js';

export interface InMemoryActivityLog extends ActivityLog {
  /** Every entry recorded, in order. */
  readonly entries: readonly ActivityEntry[];
}

/** An activity log kept in an array; written synchronously. */
export function inMemoryActivityLog(): InMemoryActivityLog {
  const entries: ActivityEntry[] = [];
  return {
    entries,
    record(entry) {
      entries.push(entry);
    },
    flush: () => Promise.resolve(),
  };
}
