export { inMemoryUpstream, type InMemoryUpstream, type ScriptedAnswer, type UpstreamResponder } from './in-memory/in-memory-upstream.js';
export { inMemorySession } from './in-memory/in-memory-session.js';
export { inMemoryActivityLog, type InMemoryActivityLog } from './in-memory/in-memory-activity-log.js';
export { gotUpstream } from './upstream/got-upstream.js';
export { undiciUpstream } from './upstream/undici-upstream.js';
export type { ClosableUpstream, UpstreamClientOptions } from './upstream/upstream-client-options.js';
export { staticTokenSource } from './tokens/static-token-source.js';
export type { ActivityLogStore, ReadableActivityLogStore, StoredActivity } from './activity-log/activity-log-store.js';
export { toStoredActivity } from './activity-log/activity-log-store.js';
export {
  bufferedActivityLog,
  type ActivityLogProblem,
  type ActivityLogStats,
  type BufferedActivityLog,
  type BufferedActivityLogOptions,
} from './activity-log/buffered-activity-log.js';
export { inMemoryActivityLogStore } from './activity-log/in-memory-activity-log-store.js';
export { openSqlActivityLogStore, sqlEngineOf, type SqlActivityLogStore, type SqlEngine } from './activity-log/sql-activity-log-store.js';
export { openActivityLog, isActivityLogUrl, type OpenedActivityLog } from './activity-log/open-activity-log.js';
export type { SessionStore } from './session/session-store.js';
export { inMemorySessionStore } from './session/in-memory-session-store.js';
export { redisSessionStore, type RedisSessionStore, type RedisSessionStoreOptions } from './session/redis-session-store.js';
export { clientCredentialsTokenSource, type ClientCredentialsOptions } from './tokens/client-credentials-token-source.js';
export { sessionTokenSource } from './tokens/session-token-source.js';
