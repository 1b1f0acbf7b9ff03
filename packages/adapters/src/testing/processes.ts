// The real peers the tests and the benchmark start as child processes (no test runner loaded):
// PHP's built-in server with the PHP app's session fixtures, and Redis (single and cluster) and memcached servers of their own;
// and a PDO session table for that PHP server to write.
export { freePort, iniFlags, phpAvailable, phpFixtures, phpServer, type PhpServer } from './php-server.js';
export { redisProcess, redisServerAvailable, type RedisProcess } from './redis-process.js';
export { memcachedProcess, type MemcachedProcess } from './memcached-process.js';
export { redisClusterAvailable, redisClusterProcess, type ClusterNode, type RedisClusterProcess } from './redis-cluster-process.js';
export { pdoSessionTable, type PdoSessionTable } from './pdo-session-table.js';
