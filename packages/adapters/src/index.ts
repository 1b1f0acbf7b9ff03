// The light adapters, without dependencies, the in-memory stores among them (the in-memory ports the use cases' tests run on are
// the core's, `@cotizaciones/core/testing`). Each heavy one has its own entry point
// (`/got`, `/undici`, `/oauth`, `/sql`, `/redis`) so a process loads only the clients it uses.
export type { ClosableUpstream, UpstreamClientOptions } from './upstream/upstream-client-options.js';
export { staticTokenSource } from './tokens/static-token-source.js';
export { sessionTokenSource } from './tokens/session-token-source.js';
export type { ActivityLogStore, ReadableActivityLogStore, StoredActivity } from './activity-log/activity-log-store.js';
export { toStoredActivity } from './activity-log/activity-log-store.js';
export {
  bufferedActivityLog,
  type ActivityLogProblem,
  type ActivityLogStats,
  type BufferedActivityLog,
  type EntryRef,
  type BufferedActivityLogOptions,
} from './activity-log/buffered-activity-log.js';
export { inMemoryActivityLogStore } from './activity-log/in-memory-activity-log-store.js';
export { isActivityLogUrl, sqlEngineOf, type SqlEngine } from './activity-log/activity-log-url.js';
export { openActivityLog, type OpenActivityLogOptions, type OpenedActivityLog } from './activity-log/open-activity-log.js';
export { ActivityStoreError, isRefusal, type StoreFailure } from './activity-log/activity-store-error.js';
export { traceHeaders } from './upstream/trace-headers.js';
export { deadLetterFile, type DeadLetter } from './activity-log/dead-letter-file.js';
export { openSpool, SPOOL_MAX_BYTES, type ActivitySpool, type SpoolOptions, type TakeOverReport } from './activity-log/activity-spool.js';
export { entryLine } from './activity-log/spool-segment.js';
export type { Clock } from './activity-log/clock.js';
export { lazyActivityLogStore } from './activity-log/lazy-activity-log-store.js';
export { entryOfRecord, entryRecord, type EntryRecord } from './activity-log/entry-record.js';
export { cutText, type TextBound } from './activity-log/cut-text.js';
export { replayDeadLetterFile } from './activity-log/replay-dead-letter.js';
export { replayCapturedLog, type CapturedLogReplay } from './activity-log/replay-captured-log.js';
export type { ReplayResult, ReplayStore } from './activity-log/replay-entries.js';
export {
  cookieSessionStore,
  type CookieSessionStore,
  type PhpSessionStore,
  type RecordSessionStore,
  type SessionRecords,
  type SessionStore,
  type SessionStoreLifecycle,
} from './session/session-store.js';
export { inMemorySessionStore } from './session/in-memory-session-store.js';
export { signingKeys, type SigningKeys } from './session/signing-keys.js';
export { cookieSessionCodec } from './session/cookie-session-codec.js';
