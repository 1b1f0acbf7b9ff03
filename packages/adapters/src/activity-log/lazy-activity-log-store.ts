import type { ReadableActivityLogStore } from './activity-log-store.js';
import { ActivityStoreError, describeError } from './activity-store-error.js';

/**
 * A store that connects (and creates its table) when first needed, so a
 * database that is down at start-up does not stop the service: a connection
 * is tried at once, then again by each write (the buffered log's retries, with
 * backoff) and each readiness probe, until one succeeds. Until then every
 * operation fails as `unavailable`, saying why.
 */
export function lazyActivityLogStore(open: () => Promise<ReadableActivityLogStore>): ReadableActivityLogStore {
  let opened: ReadableActivityLogStore | undefined;
  let opening: Promise<ReadableActivityLogStore> | undefined;
  let closed = false;

  const connected = (): Promise<ReadableActivityLogStore> => {
    if (opened) return Promise.resolve(opened);
    if (closed) return Promise.reject(new ActivityStoreError('unavailable', 'CLOSED', 'the activity log is closed'));
    opening ??= open().then(
      async (store) => {
        if (closed) {
          // Closed while connecting: not to be used, and not to keep the process alive.
          await store.close();
          throw new ActivityStoreError('unavailable', 'CLOSED', 'the activity log is closed');
        }
        opened = store;
        return store;
      },
      (error: unknown) => {
        opening = undefined;
        const { code, message } = describeError(error);
        throw new ActivityStoreError('unavailable', code, `not connected: ${message}`);
      },
    );
    return opening;
  };
  // Connect in the background now; a failure here is retried by the next write or probe.
  connected().catch(() => undefined);

  return {
    async write(entries) {
      await (await connected()).write(entries);
    },
    maxBatchBytes: () => opened?.maxBatchBytes?.(),
    // Known once connected (the table's column limits are read then): until then every entry is tried.
    refusalOf: (entry) => opened?.refusalOf?.(entry),
    async ping() {
      await (await connected()).ping();
    },
    async recent(limit) {
      return (await connected()).recent(limit);
    },
    async storedRequestIds(requestIds) {
      return (await connected()).storedRequestIds(requestIds);
    },
    async close() {
      closed = true;
      // A connection still being tried (up to the driver's connect timeout) is not waited for:
      // it closes itself when it settles, and shutdown does not spend its time limit on it.
      await opened?.close();
    },
  };
}
