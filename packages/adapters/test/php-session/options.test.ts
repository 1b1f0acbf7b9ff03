import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { phpSessions, PhpSessionConfigError, type PhpSessionProblem } from '../../src/php-session.js';

describe('the PHP sessions adapter, called directly', () => {
  it('refuses settings the configuration would refuse (its rules are the same function)', () => {
    expect(() => phpSessions({ saveHandler: 'redis', savePath: 'tcp://a:1,tcp://b:1' })).toThrow(PhpSessionConfigError);
    expect(() => phpSessions({ saveHandler: 'redis', savePath: 'tcp://a:1', touch: 'activity' })).toThrow(
      /PHP_SESSION_TOUCH activity needs PHP_SESSION_ACTIVITY_KEY/,
    );
    expect(() => phpSessions({ saveHandler: 'files', savePath: '/x', activityKey: 'LAST' })).toThrow(
      /PHP_SESSION_IDLE_SECONDS is required/,
    );
  });

  it('describes itself, once its store has loaded (as start-up does, after ready), without the Redis password', async () => {
    const sessions = phpSessions({
      saveHandler: 'redis',
      savePath: 'tcp://127.0.0.1:1?auth=s3cret&prefix=p_',
      onConnectionError: () => undefined,
    });
    expect(sessions.describe()).toBe(
      'PHP sessions: redis (loading), serializer php, cookie PHPSESSID, user key "user", no idle check, touch expiry',
    );
    await sessions.ready(0).catch(() => undefined);
    expect(sessions.describe()).toMatch(
      /^PHP sessions: redis at 127\.0\.0\.1:1, database 0, keys "p_<id>", serializer php, cookie PHPSESSID/,
    );
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

  it('takes the id itself under the user key (an integer, or digits as written); another shape is said once, without the value', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'php-sess-id-'));
    const sessions: Array<[string, string]> = [
      ['e'.repeat(26), 'user_id|i:17;'],
      ['f'.repeat(26), 'user_id|s:3:"017";'],
      ['g'.repeat(26), 'user_id|i:9223372036854775807;'],
      ['h'.repeat(26), 'user_id|s:3:"ana";'],
      ['i'.repeat(26), 'user_id|i:0;'],
      ['j'.repeat(26), 'user_id|s:20:"12345678901234567890";'],
      ['k'.repeat(26), 'user_id|a:1:{s:2:"id";i:5;}'],
    ];
    for (const [id, data] of sessions) await writeFile(join(dir, `sess_${id}`), data);
    const problems: PhpSessionProblem[] = [];
    const adapter = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      userKey: 'user_id',
      touch: 'none',
      onProblem: (problem) => problems.push(problem),
    });
    const ids = [];
    for (const [id] of sessions) ids.push((await adapter.sessionFor(`PHPSESSID=${id}`).currentUser())?.id);
    expect(ids).toEqual(['17', '017', '9223372036854775807', undefined, undefined, undefined, '5']);
    expect(problems).toEqual([
      {
        kind: 'user-shape',
        detail:
          '"user_id" holds a string that is not an id: expected an array or object with "id", or the id itself (a positive integer or a string of digits)',
      },
    ]);
    await rm(dir, { recursive: true, force: true });
  });
});
