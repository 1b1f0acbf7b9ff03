import { statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { phpSessions, type PhpSessionProblem } from '../../src/php-session.js';
import { countSpawns } from '../../src/testing/spawn-count.js';
import { holdAsPhp } from '../../src/testing/php-lock-holder.js';
import { temporaryDirs } from '../../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();
const SIGNED_IN = 'user|a:1:{s:2:"id";i:7;}';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("PHP files sessions: PHP's lock without a process, bounded", () => {
  it('an empty file unchanged for over a second is final: no user, no lock waited for, no process, one warning for 64 requests', async () => {
    const dir = temporaryDir('php-locks-');
    const empty = 'e'.repeat(26);
    const user = 'u'.repeat(26);
    writeFileSync(join(dir, `sess_${empty}`), '');
    writeFileSync(join(dir, `sess_${user}`), SIGNED_IN);
    // The clock two seconds on: both files look unchanged for that long.
    const problems: PhpSessionProblem[] = [];
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      touch: 'none',
      now: () => Date.now() + 2_000,
      onProblem: (problem) => problems.push(problem),
    });
    // A PHP request holds the empty session open: waiting for its lock would take the whole wait, then fail.
    const php = holdAsPhp(join(dir, `sess_${empty}`));
    const spawns = countSpawns();
    const answers = await Promise.all([
      ...Array.from({ length: 64 }, () => sessions.sessionFor(`PHPSESSID=${empty}`).currentUser()),
      ...Array.from({ length: 4 }, () => sessions.sessionFor(`PHPSESSID=${user}`).currentUser()),
    ]);
    expect(answers.slice(0, 64)).toEqual(Array.from({ length: 64 }, () => undefined));
    expect(answers.slice(64)).toEqual(Array.from({ length: 4 }, () => ({ id: '7' })));
    expect(spawns).not.toHaveBeenCalled();
    expect(problems).toEqual([{ kind: 'empty', sessionHash: expect.stringMatching(/^[0-9a-f]{16}$/) as string }]);
    php[Symbol.dispose]();
  });

  it('a session PHP signs in after a request saw it empty is signed in for the next turn’s requests', async () => {
    const dir = temporaryDir('php-locks-');
    const id = 'e'.repeat(26);
    writeFileSync(join(dir, `sess_${id}`), '');
    const sessions = phpSessions({ saveHandler: 'files', savePath: dir, touch: 'none', now: () => Date.now() + 2_000 });
    const ask = () => sessions.sessionFor(`PHPSESSID=${id}`).currentUser();
    expect(await Promise.all([ask(), ask(), ask()])).toEqual([undefined, undefined, undefined]);
    writeFileSync(join(dir, `sess_${id}`), SIGNED_IN);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await Promise.all([ask(), ask()])).toEqual([{ id: '7' }, { id: '7' }]);
  });

  it('the warning for empty sessions comes at most once a minute, saying how many were not logged', async () => {
    const dir = temporaryDir('php-locks-');
    writeFileSync(join(dir, `sess_${'e'.repeat(26)}`), '');
    let now = Date.now() + 2_000;
    const problems: PhpSessionProblem[] = [];
    const sessions = phpSessions({ saveHandler: 'files', savePath: dir, now: () => now, onProblem: (problem) => problems.push(problem) });
    const ask = () => sessions.sessionFor(`PHPSESSID=${'e'.repeat(26)}`).currentUser();
    for (let i = 0; i < 5; i += 1) await ask();
    now += 59_000;
    await ask();
    expect(problems.map((problem) => problem.unreported)).toEqual([undefined]);
    now += 1_000;
    await ask();
    expect(problems.map((problem) => [problem.kind, problem.unreported])).toEqual([
      ['empty', undefined],
      ['empty', 5],
    ]);
  });

  it('an undecodable file unchanged for over a second is final too, read once, without the lock', async () => {
    const dir = temporaryDir('php-locks-');
    const id = 'b'.repeat(26);
    writeFileSync(join(dir, `sess_${id}`), 'user|a:1:{s:2:"id";');
    const problems: PhpSessionProblem[] = [];
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      now: () => Date.now() + 2_000,
      onProblem: (problem) => problems.push(problem),
    });
    const php = holdAsPhp(join(dir, `sess_${id}`));
    expect(await Promise.all(Array.from({ length: 8 }, () => sessions.sessionFor(`PHPSESSID=${id}`).currentUser()))).toEqual(
      Array.from({ length: 8 }, () => undefined),
    );
    expect(problems.map((problem) => problem.kind)).toEqual(['undecodable']);
    php[Symbol.dispose]();
  });

  it("an empty file PHP has just created and holds (no value yet): no user at once, PHP's lock not waited for", async () => {
    const dir = temporaryDir('php-locks-');
    const id = 'n'.repeat(26);
    const file = join(dir, `sess_${id}`);
    writeFileSync(file, '');
    // The clock stopped when PHP created the file: changed lately, for the whole test.
    const createdMs = statSync(file).ctimeMs;
    const waiting: number[] = [];
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      touch: 'none',
      now: () => createdMs,
      onLockWaiters: (count) => waiting.push(count),
    });
    const php = holdAsPhp(file);
    const answers = await Promise.all(Array.from({ length: 20 }, () => sessions.sessionFor(`PHPSESSID=${id}`).currentUser()));
    expect(answers).toEqual(Array.from({ length: 20 }, () => undefined));
    expect(waiting).toEqual([]);
    php[Symbol.dispose]();
  });

  it('200 requests for a session PHP is writing: 6 wait for its lock (a browser’s requests at once), the rest are told to come back in a second; the 6 then read what PHP wrote', async () => {
    const dir = temporaryDir('php-locks-');
    const id = 'w'.repeat(26);
    const file = join(dir, `sess_${id}`);
    const createdMs = truncatedByPhp(file);
    let waiting = 0;
    let mostWaiting = 0;
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      touch: 'none',
      now: () => createdMs,
      onLockWaiters: (count) => {
        waiting = count;
        mostWaiting = Math.max(mostWaiting, count);
      },
    });
    const php = holdAsPhp(file);
    const spawns = countSpawns();
    const { answers, turnedAway } = await askUntilTurnedAway(sessions, [id], 200, 194);
    expect({ turnedAway: turnedAway.length, waiting }).toEqual({ turnedAway: 194, waiting: 6 });
    for (const error of turnedAway) {
      expect(error).toBeInstanceOf(SessionUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds: 1, reason: 'busy' });
    }
    php.finish(SIGNED_IN);
    const settled = await Promise.all(answers);
    expect(settled.filter((answer) => !(answer instanceof Error))).toEqual(Array.from({ length: 6 }, () => ({ id: '7' })));
    expect({ mostWaiting, waiting }).toEqual({ mostWaiting: 6, waiting: 0 });
    expect(spawns).not.toHaveBeenCalled();
  });

  it('PHP_SESSION_LOCK_WAITERS sets the bound across sessions', async () => {
    const dir = temporaryDir('php-locks-');
    const ids = ['x', 'y', 'z'].map((letter) => letter.repeat(26));
    const files = ids.map((id) => join(dir, `sess_${id}`));
    const createdMs = Math.min(...files.map(truncatedByPhp));
    let mostWaiting = 0;
    const sessions = phpSessions({
      saveHandler: 'files',
      savePath: dir,
      touch: 'none',
      lockWaiters: 2,
      now: () => createdMs,
      onLockWaiters: (count) => (mostWaiting = Math.max(mostWaiting, count)),
    });
    const phps = files.map(holdAsPhp);
    const { answers, turnedAway } = await askUntilTurnedAway(sessions, ids, 5, 3);
    expect(turnedAway).toHaveLength(3);
    for (const php of phps) php.finish(SIGNED_IN);
    const settled = await Promise.all(answers);
    expect(settled.filter((answer) => !(answer instanceof Error))).toEqual([{ id: '7' }, { id: '7' }]);
    expect(mostWaiting).toBe(2);
  });
});

/**
 * A session PHP is rewriting shorter, its lock held: truncated (its change time past its birth time,
 * as after PHP's ftruncate), the new version not written yet. Gives its change time in ms.
 */
function truncatedByPhp(file: string): number {
  writeFileSync(file, SIGNED_IN);
  // The file's times tick with the kernel's coarse clock: truncated again until the change time moves.
  for (;;) {
    truncateSync(file, 0);
    const stat = statSync(file, { bigint: true });
    if (stat.ctimeNs !== stat.birthtimeNs) return Number(stat.ctimeNs / 1_000_000n);
  }
}

/** `count` requests for the sessions at once (in turn), answered once `expected` of them have been turned away (or a deadline that only bounds a hang). */
async function askUntilTurnedAway(sessions: ReturnType<typeof phpSessions>, ids: string[], count: number, expected: number) {
  const turnedAway: unknown[] = [];
  const answers = Array.from({ length: count }, (_, i) =>
    sessions
      .sessionFor(`PHPSESSID=${ids[i % ids.length]}`)
      .currentUser()
      .catch((error: unknown) => {
        turnedAway.push(error);
        return error as Error;
      }),
  );
  const deadline = Date.now() + 10_000;
  while (turnedAway.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return { answers, turnedAway };
}
