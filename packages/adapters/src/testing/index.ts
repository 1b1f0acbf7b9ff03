export { startStubUpstream, type ReceivedRequest, type StubAnswer, type StubUpstreamServer } from './stub-upstream-server.js';
export { testUpstream, type DeliveredRequest, type UpstreamHarness, type UpstreamScenario } from './upstream-contract.js';
export { testActivityLog, sampleEntry, type ActivityLogHarness } from './activity-log-contract.js';
export { testSessionStore, type SessionStoreHarness } from './session-store-contract.js';
export { testSession, type SessionHarness } from './session-contract.js';
export { serviceUrls, type ServiceUrls } from './service-urls.js';
export { missing, servicesRequired } from './missing-service.js';
export { missingPhp, missingPhpExtensions, pdoExtension, phpModules, type PhpExtension } from './php-extensions.js';
export { startStubTokenEndpoint, type StubTokenEndpoint, type TokenRequest } from './stub-token-endpoint.js';
export { testTokenSource, type TokenSourceHarness } from './token-source-contract.js';
export {
  forClaim,
  required,
  type ActivityLogClaims,
  type SessionClaims,
  type SessionStoreClaims,
  type TokenSourceClaims,
  type UpstreamClaims,
} from './claims.js';
export { dropTable } from './drop-table.js';
export { restartablePort } from './restartable-port.js';
export { runSql } from './run-sql.js';
export { oldActivityTableSql } from './old-activity-table.js';
export {
  freePort,
  iniFlags,
  memcachedProcess,
  phpAvailable,
  phpFixtures,
  phpServer,
  redisClusterAvailable,
  redisClusterProcess,
  redisProcess,
  redisServerAvailable,
  type MemcachedProcess,
  type PhpServer,
  type RedisClusterProcess,
  type RedisProcess,
} from './processes.js';
export { redisCommandsDuring } from './redis-monitor.js';
export { temporaryDirs } from './temporary-dir.js';
export { testSeed } from './test-seed.js';
export { SQLite, openSqliteReadOnly, type SqliteDatabase } from '../activity-log/sqlite-driver.js';
export { deleteRedisKeys } from './delete-redis-keys.js';
export { holdAsPhp, type PhpLockHolder } from './php-lock-holder.js';
export { countSpawns } from './spawn-count.js';
export { pdoSessionTable, type PdoSessionTable } from './pdo-session-table.js';
