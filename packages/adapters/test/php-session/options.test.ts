import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phpSessionOptionsFromEnv, PhpSessionEnvError, phpSessions, PhpSessionConfigError } from '../../src/php-session.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    phpSessionOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof PhpSessionEnvError) return error.problems;
    throw error;
  }
  return [];
};

describe('PHP_SESSION_* variables', () => {
  it('defaults to php.ini defaults, with the save path required', () => {
    expect(phpSessionOptionsFromEnv({ PHP_SESSION_SAVE_PATH: '/var/lib/php/sessions' })).toEqual({
      saveHandler: 'files',
      savePath: '/var/lib/php/sessions',
      serializeHandler: 'php',
      name: 'PHPSESSID',
      gcMaxLifetimeSeconds: 1440,
      userKey: 'user',
      touch: 'expiry',
    });
    expect(problemsOf({})).toEqual([expect.stringMatching(/^PHP_SESSION_SAVE_PATH: required/) as string]);
  });

  it('reads every variable', () => {
    expect(
      phpSessionOptionsFromEnv({
        PHP_SESSION_SAVE_HANDLER: 'redis',
        PHP_SESSION_SAVE_PATH: 'tcp://10.0.0.5:6380?prefix=app_&database=3&auth=s3cret&timeout=2.5',
        PHP_SESSION_SERIALIZE_HANDLER: 'php_serialize',
        PHP_SESSION_NAME: 'APPSESS',
        PHP_SESSION_GC_MAXLIFETIME: '3600',
        PHP_SESSION_USER_KEY: 'usuario',
        PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
        PHP_SESSION_IDLE_SECONDS: '1800',
        PHP_SESSION_TOUCH: 'activity',
      }),
    ).toMatchObject({ saveHandler: 'redis', serializeHandler: 'php_serialize', name: 'APPSESS', gcMaxLifetimeSeconds: 3600, activityKey: 'LAST_ACTIVITY', idleSeconds: 1800, touch: 'activity' });
  });

  it('refuses what it cannot honour, one line per variable, never printing a secret', () => {
    const problems = problemsOf({
      PHP_SESSION_SAVE_HANDLER: 'memcached',
      PHP_SESSION_SAVE_PATH: '/x',
      PHP_SESSION_SERIALIZE_HANDLER: 'igbinary',
      PHP_SESSION_NAME: '123',
      PHP_SESSION_GC_MAXLIFETIME: '-5',
      PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
      PHP_SESSION_TOUCH: 'always',
    });
    expect(problems.map((line) => line.split(':')[0])).toEqual([
      'PHP_SESSION_SAVE_HANDLER',
      'PHP_SESSION_SERIALIZE_HANDLER',
      'PHP_SESSION_NAME',
      'PHP_SESSION_GC_MAXLIFETIME',
      'PHP_SESSION_ACTIVITY_KEY, PHP_SESSION_IDLE_SECONDS',
      'PHP_SESSION_TOUCH',
    ]);
    expect(problemsOf({ PHP_SESSION_SERIALIZE_HANDLER: 'msgpack', PHP_SESSION_SAVE_PATH: '/x' })).toHaveLength(1);
    const redis = (path: string) => problemsOf({ PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: path });
    expect(redis('tcp://a:6379?auth=s3cret,tcp://b:6379?auth=s3cret')).toEqual([expect.stringMatching(/^PHP_SESSION_SAVE_PATH: several Redis servers/) as string]);
    expect(redis('tcp://a:6379?auth=s3cret&compression=lzf')).toEqual(['PHP_SESSION_SAVE_PATH: compression is not supported: the service reads the serialized bytes PHP writes (leave redis.session.compression at none)']);
    expect(redis('tls://a:6379?auth=s3cret')).toEqual([expect.stringMatching(/scheme "tls:" is not supported/) as string]);
    expect(redis('tcp://user:s3cret@a:6379')).toHaveLength(1);
    expect(redis('redis-host:6379')).toHaveLength(1);
    for (const path of ['tcp://a:6379?auth=s3cret,tcp://b:6379', 'tcp://a:6379?auth=s3cret&compression=lzf', 'tls://a:6379?auth=s3cret', 'tcp://user:s3cret@a:6379']) {
      expect(redis(path).join('\n')).not.toContain('s3cret');
    }
    expect(problemsOf({ PHP_SESSION_SAVE_PATH: 'relative/dir' })).toEqual(['PHP_SESSION_SAVE_PATH: the directory must be an absolute path']);
    expect(problemsOf({ PHP_SESSION_SAVE_PATH: '2;0600;/var/lib/php/sessions' })).toEqual([]);
    expect(problemsOf({ PHP_SESSION_SAVE_PATH: 'x;/var/lib/php/sessions' })).toHaveLength(1);
  });

  it('refuses touch=activity with files (Node cannot take PHP\'s flock) and without an activity key', () => {
    expect(problemsOf({ PHP_SESSION_SAVE_PATH: '/x', PHP_SESSION_ACTIVITY_KEY: 'LAST', PHP_SESSION_IDLE_SECONDS: '60', PHP_SESSION_TOUCH: 'activity' })).toEqual([
      expect.stringMatching(/^PHP_SESSION_TOUCH=activity is not supported with the files handler/) as string,
    ]);
    expect(problemsOf({ PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: 'tcp://a:1', PHP_SESSION_TOUCH: 'activity' })).toEqual([
      'PHP_SESSION_TOUCH: activity needs PHP_SESSION_ACTIVITY_KEY',
    ]);
    expect(() => phpSessions({ saveHandler: 'redis', savePath: 'tcp://a:1,tcp://b:1' })).toThrow(PhpSessionConfigError);
  });

  it('describes itself without the Redis password', async () => {
    const sessions = phpSessions({ saveHandler: 'redis', savePath: 'tcp://127.0.0.1:1?auth=s3cret&prefix=p_', onConnectionError: () => undefined });
    expect(sessions.describe()).toMatch(/^PHP sessions: redis at 127\.0\.0\.1:1, database 0, keys "p_<id>", serializer php, cookie PHPSESSID/);
    expect(sessions.describe()).not.toContain('s3cret');
    await sessions.close();
  });
});

describe('the session cookie', () => {
  it('takes the first cookie of the configured name, URL-decoded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'php-sess-cookie-'));
    const first = 'a'.repeat(26);
    const second = 'b'.repeat(26);
    await writeFile(join(dir, `sess_${second}`), 'user|a:1:{s:2:"id";i:2;}');
    await writeFile(join(dir, `sess_${'c'.repeat(24)},-`), 'user|a:1:{s:2:"id";i:3;}');
    const sessions = phpSessions({ saveHandler: 'files', savePath: dir, name: 'APPSESS' });
    expect(await sessions.sessionFor(`APPSESS=${second}`).currentUser()).toMatchObject({ id: '2' });
    expect(await sessions.sessionFor(`APPSESS=${first}; APPSESS=${second}`).currentUser()).toBeUndefined();
    expect(await sessions.sessionFor(`PHPSESSID=${second}`).currentUser()).toBeUndefined();
    expect(await sessions.sessionFor(`x=1;APPSESS=${'c'.repeat(24)}%2C-`).currentUser()).toMatchObject({ id: '3' });
    expect(await sessions.sessionFor(`APPSESS=%E0%A4%A`).currentUser()).toBeUndefined();
    expect(await sessions.sessionFor(undefined).currentUser()).toBeUndefined();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the store once per request however often the user is asked for', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'php-sess-cookie-'));
    const id = 'd'.repeat(26);
    await writeFile(join(dir, `sess_${id}`), 'user|a:1:{s:2:"id";i:4;}');
    const session = phpSessions({ saveHandler: 'files', savePath: dir }).sessionFor(`PHPSESSID=${id}`);
    expect(await session.currentUser()).toMatchObject({ id: '4' });
    await rm(join(dir, `sess_${id}`));
    expect(await session.currentUser()).toMatchObject({ id: '4' });
    await rm(dir, { recursive: true, force: true });
  });
});
