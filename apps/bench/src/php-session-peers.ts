import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  freePort,
  memcachedProcess,
  pdoSessionTable,
  phpServer,
  redisClusterAvailable,
  redisClusterProcess,
  redisProcess,
  type MemcachedProcess,
  type PdoSessionTable,
  type PhpServer,
  type RedisClusterProcess,
  type RedisProcess,
} from '@cotizaciones/adapters/testing/processes';

/** The session id of an empty session file: what PHP leaves for any visitor of a page that starts a session. */
export const EMPTY_SESSION_ID = '0'.repeat(26);

/** The real PHP apps the PHP-session bench reads the sessions of, each on its save handler's server. */
export interface PhpPeers {
  /** Files sessions (php serializer), and the save path of phpredis's. */
  readonly dir: string;
  readonly igbinaryDir: string;
  readonly savePath: string;
  readonly redis: RedisProcess;
  readonly phpFiles: PhpServer;
  readonly phpRedis: PhpServer;
  readonly phpFilesIgbinary: PhpServer;
  /** Where memcached and php-memcached are installed. */
  readonly memcached?: { readonly address: string; readonly php: PhpServer };
  /** phpredis on a 3-master cluster, where redis-cli is installed. */
  readonly cluster?: { readonly savePath: string; readonly php: PhpServer };
  /** A PDO session table (Symfony's schema) in SQLite, and in PostgreSQL with TEST_POSTGRES_URL. */
  readonly pdo: ReadonlyArray<{ readonly name: string; readonly table: PdoSessionTable; readonly php: PhpServer }>;
  stop(): Promise<void>;
}

/** Whether php-memcached's mode can run (as .ci/run installs it): memcached and the extension; says so when not. */
export function memcachedInstalled(log: (line: string) => void): boolean {
  const installed =
    spawnSync('memcached', ['-h']).status === 0 && execFileSync('php', ['-m'], { encoding: 'utf8' }).split('\n').includes('memcached');
  if (!installed) log('memcached or php-memcached not installed: no php memcached mode');
  return installed;
}

/** Starts the servers and PHP apps under `scratch`; on a failure, stops what it started. */
export async function startPhpPeers(scratch: string, withMemcached: boolean, log: (line: string) => void): Promise<PhpPeers> {
  const phps: PhpServer[] = [];
  const tables: PdoSessionTable[] = [];
  const redis = redisProcess(await freePort());
  const memcached: MemcachedProcess | undefined = withMemcached ? memcachedProcess(await freePort()) : undefined;
  let cluster: RedisClusterProcess | undefined;
  const stop = async () => {
    await Promise.all(phps.map((php) => php.stop()));
    await Promise.all(tables.map((table) => table.drop()));
    await redis.stop();
    await cluster?.stop();
    await memcached?.stop();
    memcached?.remove();
  };
  const started = async (ini: Record<string, string>) => {
    const php = await phpServer(ini);
    phps.push(php);
    return php;
  };
  try {
    await redis.start();
    await memcached?.start();
    const dir = join(scratch, 'sessions');
    await mkdir(dir);
    const igbinaryDir = join(scratch, 'sessions-igbinary');
    await mkdir(igbinaryDir);
    // Made first, so that by the load it has long been unchanged: final, as PHP leaves a visitor's session.
    await writeFile(join(dir, `sess_${EMPTY_SESSION_ID}`), '');
    const savePath = `tcp://127.0.0.1:${new URL(redis.url).port}?prefix=bench_`;
    const phpFiles = await started({ 'session.save_handler': 'files', 'session.save_path': dir });
    const phpRedis = await started({ 'session.save_handler': 'redis', 'session.save_path': savePath });
    const phpFilesIgbinary = await started({
      'session.save_handler': 'files',
      'session.save_path': igbinaryDir,
      'session.serialize_handler': 'igbinary',
    });
    const phpMemcached = memcached && (await started({ 'session.save_handler': 'memcached', 'session.save_path': memcached.address }));
    if (redisClusterAvailable()) cluster = await redisClusterProcess({ masters: 3 });
    else log('redis-cli not installed: no php rediscluster rows');
    const clusterPath = cluster ? `${cluster.seeds}&timeout=2&read_timeout=2` : '';
    const phpCluster = cluster ? await started({ 'session.save_handler': 'rediscluster', 'session.save_path': clusterPath }) : undefined;
    const pdo: Array<{ name: string; table: PdoSessionTable; php: PhpServer }> = [];
    const postgres = process.env.TEST_POSTGRES_URL;
    for (const [name, engine, where] of [
      ['php pdo', 'sqlite', join(scratch, 'sessions.db')],
      ...(postgres ? [['php pdo, postgres', 'postgres', postgres] as const] : []),
    ] as const) {
      const table = await pdoSessionTable(engine, where).catch((error: unknown) => log(`no ${name} row: ${(error as Error).message}`));
      if (!table) continue;
      tables.push(table);
      pdo.push({ name, table, php: await started(table.phpIni) });
    }
    return {
      dir,
      igbinaryDir,
      savePath,
      redis,
      phpFiles,
      phpRedis,
      phpFilesIgbinary,
      ...(memcached && phpMemcached ? { memcached: { address: memcached.address, php: phpMemcached } } : {}),
      ...(phpCluster ? { cluster: { savePath: clusterPath, php: phpCluster } } : {}),
      pdo,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The cookie of user `id` signed in through `php`'s fixture page. */
export async function signIn(php: PhpServer, id: string): Promise<string> {
  return (await php.get(`session.php?action=signin&id=${id}`)).cookie ?? '';
}
