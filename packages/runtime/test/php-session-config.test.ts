import { describe, expect, it } from 'vitest';
import { readSessionConfig, type ConfigProblems } from '../src/index.js';

const PHP = { SESSION_STORE: 'php' };

function problems(env: Record<string, string>): readonly string[] {
  const found: ConfigProblems = new Map();
  readSessionConfig({ ...PHP, ...env }, found);
  return [...found.values()];
}
const settings = (env: Record<string, string>) => {
  const found: ConfigProblems = new Map();
  const config = readSessionConfig({ ...PHP, ...env }, found);
  expect([...found.values()]).toEqual([]);
  return config.phpSession;
};

describe('PHP_SESSION_* variables (SESSION_STORE=php)', () => {
  it("defaults to php.ini's defaults, with the save path required", () => {
    expect(settings({ PHP_SESSION_SAVE_PATH: '/var/lib/php/sessions' })).toEqual({
      saveHandler: 'files',
      savePath: '/var/lib/php/sessions',
      serializeHandler: 'php',
      name: 'PHPSESSID',
      gcMaxLifetimeSeconds: 1440,
      userKey: 'user',
      touch: 'expiry',
      maxBytes: 1048576,
      lockWaiters: 128,
    });
    expect(problems({})).toEqual([expect.stringMatching(/^PHP_SESSION_SAVE_PATH required/) as string]);
    expect(readSessionConfig({ PHP_SESSION_SAVE_HANDLER: 'memcached' }, new Map()).phpSession).toBeUndefined();
  });

  it('reads every variable, trimmed', () => {
    expect(
      settings({
        PHP_SESSION_SAVE_HANDLER: ' redis',
        PHP_SESSION_SAVE_PATH: 'tcp://10.0.0.5:6380?prefix=app_&database=3&auth=s3cret&timeout=2.5',
        PHP_SESSION_SERIALIZE_HANDLER: 'igbinary',
        PHP_SESSION_NAME: 'APPSESS',
        PHP_SESSION_GC_MAXLIFETIME: '3600 ',
        PHP_SESSION_USER_KEY: 'usuario',
        PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
        PHP_SESSION_IDLE_SECONDS: '1800',
        PHP_SESSION_TOUCH: 'activity',
        PHP_SESSION_MAX_BYTES: '262144',
        PHP_SESSION_LOCK_WAITERS: ' 32',
      }),
    ).toMatchObject({
      lockWaiters: 32,
      maxBytes: 262144,
      saveHandler: 'redis',
      serializeHandler: 'igbinary',
      name: 'APPSESS',
      gcMaxLifetimeSeconds: 3600,
      userKey: 'usuario',
      activityKey: 'LAST_ACTIVITY',
      idleSeconds: 1800,
      touch: 'activity',
    });
  });

  it('refuses what it cannot honour, one line per variable in the order of the variables, never printing a secret', () => {
    expect(
      problems({
        PHP_SESSION_SAVE_HANDLER: 'memcache',
        PHP_SESSION_SAVE_PATH: '/x',
        PHP_SESSION_SERIALIZE_HANDLER: 'msgpack',
        PHP_SESSION_NAME: '123',
        PHP_SESSION_GC_MAXLIFETIME: '-5',
        PHP_SESSION_USER_KEY: 'a|b',
        PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
        PHP_SESSION_TOUCH: 'always',
        PHP_SESSION_LOCK_WAITERS: '0',
      }),
    ).toEqual([
      'PHP_SESSION_SAVE_HANDLER "memcache" is not supported: expected files (PHP), redis (phpredis), rediscluster (phpredis), memcached (php-memcached) or pdo (a session table)',
      'PHP_SESSION_SERIALIZE_HANDLER "msgpack" is not supported: expected php, php_serialize, php_binary or igbinary',
      'PHP_SESSION_NAME "123" is not a session cookie name PHP accepts',
      'PHP_SESSION_GC_MAXLIFETIME "-5" is not a positive whole number of seconds',
      'PHP_SESSION_USER_KEY cannot contain "|" (PHP ends a session key there)',
      'PHP_SESSION_IDLE_SECONDS is required with PHP_SESSION_ACTIVITY_KEY (the session-control step: set both or neither)',
      'PHP_SESSION_TOUCH "always" is not one of none, expiry, activity',
      'PHP_SESSION_LOCK_WAITERS must be a number of requests from 1 to 10000 (got "0")',
    ]);
    expect(problems({ PHP_SESSION_SAVE_PATH: '/x', PHP_SESSION_LOCK_WAITERS: 'many' })).toEqual([
      'PHP_SESSION_LOCK_WAITERS must be a number of requests from 1 to 10000 (got "many")',
    ]);
    expect(problems({ PHP_SESSION_SAVE_PATH: '/x', PHP_SESSION_IDLE_SECONDS: '60' })).toEqual([
      'PHP_SESSION_ACTIVITY_KEY is required with PHP_SESSION_IDLE_SECONDS (the session-control step: set both or neither)',
    ]);
    const redis = (path: string) => problems({ PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: path });
    expect(redis('tcp://a:6379?auth=s3cret,tcp://b:6379?auth=s3cret')).toEqual([
      expect.stringMatching(/^PHP_SESSION_SAVE_PATH several Redis servers/) as string,
    ]);
    expect(redis('tcp://a:6379?auth=s3cret&compression=lzf')).toEqual([
      'PHP_SESSION_SAVE_PATH compression is not supported: the service reads the serialized bytes PHP writes (leave redis.session.compression at none)',
    ]);
    expect(redis('tls://a:6379?auth=s3cret')).toEqual([expect.stringMatching(/scheme "tls:" is not supported/) as string]);
    expect(redis('tcp://user:s3cret@a:6379')).toHaveLength(1);
    expect(redis('redis-host:6379')).toHaveLength(1);
    for (const path of [
      'tcp://a:6379?auth=s3cret,tcp://b:6379',
      'tcp://a:6379?auth=s3cret&compression=lzf',
      'tls://a:6379?auth=s3cret',
      'tcp://user:s3cret@a:6379',
    ]) {
      expect(redis(path).join('\n')).not.toContain('s3cret');
    }
    expect(problems({ PHP_SESSION_SAVE_PATH: 'relative/dir' })).toEqual(['PHP_SESSION_SAVE_PATH the directory must be an absolute path']);
    expect(problems({ PHP_SESSION_SAVE_PATH: '2;0600;/var/lib/php/sessions' })).toEqual([]);
    expect(problems({ PHP_SESSION_SAVE_PATH: 'x;/var/lib/php/sessions' })).toHaveLength(1);
    // The save path is not blamed for a handler that was refused.
    expect(problems({ PHP_SESSION_SAVE_HANDLER: 'memcache', PHP_SESSION_SAVE_PATH: 'tcp://a:1' })).toHaveLength(1);
  });

  it("reads phpredis's cluster save path as php.ini has it, never printing its password", () => {
    const cluster = (path: string) => problems({ PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: path });
    expect(cluster('seed[]=10.0.0.1:7000&seed[]=10.0.0.2:7000&timeout=2&read_timeout=2&failover=error&persistent=1&auth=s3cret')).toEqual(
      [],
    );
    expect(settings({ PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: 'seed[]=a:7000' })?.saveHandler).toBe(
      'rediscluster',
    );
    expect(cluster('tcp://a:6379?auth=s3cret')).toEqual([
      expect.stringMatching(/^PHP_SESSION_SAVE_PATH expected phpredis's cluster form/) as string,
    ]);
    expect(cluster('seed[]=a:7000&database=1&auth=s3cret')).toEqual([expect.stringMatching(/only database 0/) as string]);
    for (const path of ['seed[]=a&auth=s3cret', 'seed[]=a:1&auth[]=u&auth[]=s3cret&stream[verify_peer]=0', 'seed[]=a:1&auth=s3cret&x=1']) {
      expect(cluster(path)).toHaveLength(1);
      expect(cluster(path).join('\n')).not.toContain('s3cret');
    }
  });

  it("reads php-memcached's save path and prefix as php.ini has them", () => {
    const memcached = (env: Record<string, string>) => problems({ PHP_SESSION_SAVE_HANDLER: 'memcached', ...env });
    expect(memcached({ PHP_SESSION_SAVE_PATH: '10.0.0.1:11211:2, cache-b:11212,cache-c' })).toEqual([]);
    expect(memcached({ PHP_SESSION_SAVE_PATH: 'tcp://10.0.0.1:11211' })).toEqual([
      expect.stringMatching(/^PHP_SESSION_SAVE_PATH "tcp:\/\/10.0.0.1:11211" is not a memcached server/) as string,
    ]);
    expect(memcached({ PHP_SESSION_SAVE_PATH: 'PERSISTENT=app 10.0.0.1:11211' })).toEqual([
      expect.stringMatching(/^PHP_SESSION_SAVE_PATH libmemcached options/) as string,
    ]);
    expect(memcached({ PHP_SESSION_SAVE_PATH: 'a:70000' })).toHaveLength(1);
    expect(memcached({ PHP_SESSION_SAVE_PATH: 'a:1', PHP_SESSION_MEMCACHED_PREFIX: 'app sess.' })).toEqual([
      'PHP_SESSION_MEMCACHED_PREFIX "app sess." is not a memcached.sess_prefix: up to 218 printable ASCII characters, no spaces',
    ]);
    expect(
      settings({ PHP_SESSION_SAVE_HANDLER: 'memcached', PHP_SESSION_SAVE_PATH: 'a:1', PHP_SESSION_MEMCACHED_PREFIX: 'app.sess.' })
        ?.memcachedPrefix,
    ).toBe('app.sess.');
    expect(settings({ PHP_SESSION_SAVE_HANDLER: 'memcached', PHP_SESSION_SAVE_PATH: 'a:1' })?.memcachedPrefix).toBe('memc.sess.key.');
  });

  it('reads a PDO session table: the database as the activity log names it, the table and its columns as SQL identifiers', () => {
    const pdo = (env: Record<string, string>) => problems({ PHP_SESSION_SAVE_HANDLER: 'pdo', ...env });
    expect(settings({ PHP_SESSION_SAVE_HANDLER: 'pdo', PHP_SESSION_SAVE_PATH: 'mysql://app:s3cret@db/app' })).toMatchObject({
      saveHandler: 'pdo',
      pdoTable: 'sessions',
      pdoColumns: 'sess_id,sess_data,sess_lifetime,sess_time',
    });
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'postgres://app@db/app', PHP_SESSION_PDO_TABLE: 'app.php_sessions' })).toEqual([]);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/var/lib/app/sessions.db' })).toEqual([]);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/s.db', PHP_SESSION_PDO_COLUMNS: 'time=t, id=i, data=d, lifetime=l' })).toEqual([]);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:' })).toEqual(['PHP_SESSION_SAVE_PATH sqlite: needs the file the PHP app writes']);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'pgsql:host=db;dbname=app;password=s3cret' })).toEqual([
      'PHP_SESSION_SAVE_PATH expected the database as mysql://…, postgres://… or sqlite:<file>',
    ]);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/s.db', PHP_SESSION_PDO_TABLE: 'sessions; DROP TABLE x' })).toEqual([
      expect.stringMatching(/^PHP_SESSION_PDO_TABLE "sessions; DROP TABLE x" is not a table name/) as string,
    ]);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/s.db', PHP_SESSION_PDO_TABLE: 'a.b.c' })).toHaveLength(1);
    expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/s.db', PHP_SESSION_PDO_COLUMNS: 'sess_id,sess_data,sess_lifetime' })).toEqual([
      expect.stringMatching(/^PHP_SESSION_PDO_COLUMNS "sess_id,sess_data,sess_lifetime" expected four columns/) as string,
    ]);
    for (const columns of [
      'sess_id,sess_data,sess_lifetime,"sess_time"',
      'id=a,data=a,lifetime=b,time=c',
      'id=a,data=b,expiry=c,time=d',
      'id=a,b,c,d',
    ])
      expect(pdo({ PHP_SESSION_SAVE_PATH: 'sqlite:/s.db', PHP_SESSION_PDO_COLUMNS: columns }), columns).toHaveLength(1);
  });

  it("refuses touch=activity with files (it would rewrite the file under PHP's lock) and without an activity key", () => {
    expect(
      problems({
        PHP_SESSION_SAVE_PATH: '/x',
        PHP_SESSION_ACTIVITY_KEY: 'LAST',
        PHP_SESSION_IDLE_SECONDS: '60',
        PHP_SESSION_TOUCH: 'activity',
      }),
    ).toEqual([expect.stringMatching(/^PHP_SESSION_TOUCH=activity is not supported with the files handler/) as string]);
    expect(problems({ PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: 'tcp://a:1', PHP_SESSION_TOUCH: 'activity' })).toEqual([
      'PHP_SESSION_TOUCH activity needs PHP_SESSION_ACTIVITY_KEY',
    ]);
  });
});
