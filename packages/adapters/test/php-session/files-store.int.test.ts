import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chown, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { phpSessions, type PhpSessionProblem, type PhpSessionsOptions } from '../../src/php-session.js';
import { iniFlags, phpFixtures, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import { missingPhp } from '../../src/testing/index.js';

interface Shown {
  id: string;
  session: Record<string, unknown> | null;
}

/** A scratch session directory and `php -S` writing its sessions there, for one describe block. */
function phpWithSessionDir(): { readonly dir: string; get: PhpServer['get'] } {
  let dir = '';
  let server: PhpServer | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'php-sess-'));
    server = await phpServer({ 'session.save_handler': 'files', 'session.save_path': dir });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get: (path, cookie) => server!.get(path, cookie),
  };
}

const SIGNED_IN = { id: '9007199254740993', nombre: 'Ana Núñez' };

describe.skipIf(missingPhp('igbinary'))('PHP sessions in files, written by a real PHP', () => {
  for (const { format, savePath } of [
    { format: 'php', savePath: (dir: string) => dir },
    { format: 'php_binary', savePath: (dir: string) => `2;0600;${dir}` },
    { format: 'php_serialize', savePath: (dir: string) => dir },
    { format: 'igbinary', savePath: (dir: string) => dir },
  ] as const) {
    describe(`${format}, save path ${savePath('DIR')}`, () => {
      let dir: string;
      let php: PhpServer;
      const problems: PhpSessionProblem[] = [];
      const sessions = (options: Partial<PhpSessionsOptions> = {}) =>
        phpSessions({
          saveHandler: 'files',
          savePath: savePath(dir),
          serializeHandler: format,
          activityKey: 'LAST_ACTIVITY',
          idleSeconds: 1800,
          onProblem: (problem) => problems.push(problem),
          ...options,
        });
      const fileOf = (id: string) => (savePath(dir) === dir ? join(dir, `sess_${id}`) : join(dir, id[0]!, id[1]!, `sess_${id}`));

      beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'php-sess-'));
        if (savePath(dir) !== dir) {
          // PHP does not create the sub-folders of "N;MODE;/dir": the admin does (PHP ships mod_files.sh for it).
          // Hexadecimal ids (4 bits a character) need 16 × 16 of them, not the 64 × 64 of the widest alphabet.
          const alphabet = '0123456789abcdef';
          await Promise.all([...alphabet].flatMap((a) => [...alphabet].map((b) => mkdir(join(dir, a, b), { recursive: true }))));
        }
        php = await phpServer({
          'session.save_handler': 'files',
          'session.save_path': savePath(dir),
          'session.serialize_handler': format,
          ...(savePath(dir) === dir ? {} : { 'session.sid_bits_per_character': '4' }),
        });
      });
      afterAll(async () => {
        await php.stop();
        await rm(dir, { recursive: true, force: true });
      });

      it('reads the user PHP signed in, id as its exact decimal text, and nothing after PHP signs out', async () => {
        const { cookie } = await php.get(`session.php?action=signin&id=${SIGNED_IN.id}&nombre=${encodeURIComponent(SIGNED_IN.nombre)}`);
        expect(cookie).toMatch(/^PHPSESSID=[A-Za-z0-9,-]{26,}$/);
        const adapter = sessions();
        const user = await adapter.sessionFor(`theme=dark; ${cookie}`).currentUser();
        expect(user).toMatchObject(SIGNED_IN);
        expect((user as unknown as { roles: Record<string, unknown> }).roles).toEqual(
          Object.assign(Object.create(null) as object, { 0: 'admin' }),
        );

        await php.get('session.php?action=signout', cookie);
        expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
        // Nothing was created in PHP's place.
        await expect(stat(fileOf(cookie!.split('=')[1]!))).rejects.toMatchObject({ code: 'ENOENT' });
        await adapter.close();
      });

      it('treats a session whose activity time is older than the idle limit as signed out, and says so without the id', async () => {
        const { cookie } = await php.get('session.php?action=signin&id=7');
        const id = cookie!.split('=')[1]!;
        const now = Math.floor(Date.now() / 1000);
        await php.get(`session.php?action=activity&at=${now - 1700}`, cookie);
        expect(await sessions().sessionFor(cookie).currentUser()).toMatchObject({ id: '7' });
        await php.get(`session.php?action=activity&at=${now - 1900}`, cookie);
        problems.length = 0;
        expect(await sessions().sessionFor(cookie).currentUser()).toBeUndefined();
        expect(problems).toEqual([{ kind: 'idle', sessionHash: expect.stringMatching(/^[0-9a-f]{16}$/) as string }]);
        expect(JSON.stringify(problems)).not.toContain(id);
      });

      it('moves the file modification time PHP sees (expiry touch), and a file past gc_maxlifetime is absent', async () => {
        const { cookie } = await php.get('session.php?action=signin&id=8');
        const id = cookie!.split('=')[1]!;
        const mtime = async () =>
          (await php.get<{ mtime: number }>(`expiry.php?handler=files&dir=${encodeURIComponent(dirname(fileOf(id)))}&id=${id}`)).body.mtime;
        const past = Math.floor(Date.now() / 1000) - 600;
        await utimes(fileOf(id), past, past);
        expect(await mtime()).toBe(past);
        expect(await sessions({ touch: 'none' }).sessionFor(cookie).currentUser()).toMatchObject({ id: '8' });
        expect(await mtime()).toBe(past);
        expect(await sessions().sessionFor(cookie).currentUser()).toMatchObject({ id: '8' });
        expect(await mtime()).toBeGreaterThanOrEqual(past + 600);
        // Untouched for longer than gc_maxlifetime: PHP's GC would delete it whenever it runs.
        await utimes(fileOf(id), past, past);
        expect(await sessions({ gcMaxLifetimeSeconds: 599 }).sessionFor(cookie).currentUser()).toBeUndefined();
        expect(await mtime()).toBe(past);
      });

      it("moves it at most once a minute (PHP's GC counts in minutes): a file modified lately is left alone", async () => {
        const { cookie } = await php.get('session.php?action=signin&id=9');
        const id = cookie!.split('=')[1]!;
        const mtimeMs = async () => Math.round((await stat(fileOf(id))).mtimeMs);
        const adapter = sessions();
        const lately = new Date(Date.now() - 50_000);
        await utimes(fileOf(id), lately, lately);
        for (let i = 0; i < 3; i += 1) expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9' });
        expect(await mtimeMs()).toBe(lately.getTime());
        const minuteAgo = new Date(Date.now() - 61_000);
        await utimes(fileOf(id), minuteAgo, minuteAgo);
        expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9' });
        expect(await mtimeMs()).toBeGreaterThanOrEqual(Date.now() - 5_000);
      });
    });
  }

  describe('beside a PHP process rewriting the same session', () => {
    const php = phpWithSessionDir();

    it('never answers signed out while PHP truncates and rewrites the file under its lock: six readers, 3 000 rewrites', async () => {
      const { cookie } = await php.get('session.php?action=signin&id=11');
      const id = cookie!.split('=')[1]!;
      const stopFile = join(php.dir, 'stop-writer');
      const writer = spawn(
        'php',
        [...iniFlags({ 'session.save_handler': 'files', 'session.save_path': php.dir }), `${phpFixtures}writer.php`, id, stopFile],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      // Listened for from the start: the writer may end on its own (its safety deadline) before it is told to.
      const exited = once(writer, 'exit');
      let output = '';
      writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({
        saveHandler: 'files',
        savePath: php.dir,
        touch: 'none',
        onProblem: (problem) => problems.push(problem),
      });
      // Six clients read as fast as they can until PHP has rewritten the session 3 000 times.
      let signedOut = 0;
      let reads = 0;
      let done = false;
      const reader = async () => {
        while (!done) {
          if ((await adapter.sessionFor(cookie).currentUser()) === undefined) signedOut += 1;
          reads += 1;
        }
      };
      // PHP ending on its own (its 100 s deadline) ends the reading too: the rounds it made are then judged.
      void exited.then(() => (done = true));
      const watcher = async () => {
        while (!done && (await counterOf(php.dir, id)) < 3_000) await new Promise((resolve) => setTimeout(resolve, 50));
        done = true;
      };
      try {
        // Once PHP is writing (the counter appears), read as fast as possible.
        while ((await counterOf(php.dir, id)) === 0) {
          const user = await adapter.sessionFor(cookie).currentUser();
          expect({ user, problems }).toMatchObject({ user: { id: '11' }, problems: [] });
        }
        await Promise.all([watcher(), ...Array.from({ length: 6 }, reader)]);
      } finally {
        // Whatever failed, the readers end and so does PHP: a failed test leaves nothing running.
        done = true;
        await writeFile(stopFile, '');
        await exited;
      }
      const { rounds, lost } = JSON.parse(output) as { rounds: number; lost: number };
      console.log(`[php files] ${reads} reads by six clients while PHP rewrote the session ${rounds} times`);
      // How many reads fit in those rewrites depends on the machine (13 000 to 31 000 seen): only logged.
      expect(rounds).toBeGreaterThanOrEqual(3_000);
      expect({ signedOut, lost, problems }).toEqual({ signedOut: 0, lost: 0, problems: [] });
    }, 180_000);

    it('two PHP workers rewriting one session back to back, six requests of its user reading it: no 503, no sign-out, no PHP write lost', async () => {
      const { cookie } = await php.get('session.php?action=signin&id=13');
      const id = cookie!.split('=')[1]!;
      const stopFile = join(php.dir, 'stop-busy-writers');
      const ROUNDS = 1_500;
      // Bounded in rounds, in time (the fixture's 60 s) and by the stop file, written whatever happens.
      const writers = [1, 2].map(() => {
        const writer = spawn(
          'php',
          [
            ...iniFlags({ 'session.save_handler': 'files', 'session.save_path': php.dir }),
            `${phpFixtures}busy-writer.php`,
            id,
            String(ROUNDS),
            stopFile,
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let output = '';
        writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        return once(writer, 'exit').then(([code]) => ({ code: code as number | null, output }));
      });
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir, touch: 'none' });
      let done = false;
      const seen = { reads: 0, signedOut: 0, unavailable: [] as string[] };
      const reader = async () => {
        while (!done) {
          try {
            if ((await adapter.sessionFor(cookie).currentUser())?.id !== '13') seen.signedOut += 1;
          } catch (error) {
            seen.unavailable.push((error as Error).message);
          }
          seen.reads += 1;
        }
      };
      let exits: { code: number | null; output: string }[] = [];
      try {
        const readers = Array.from({ length: 6 }, reader);
        exits = await Promise.all(writers);
        done = true;
        await Promise.all(readers);
      } finally {
        done = true;
        await writeFile(stopFile, '');
        await Promise.all(writers);
        await rm(stopFile);
      }
      const rounds = exits.map(({ code, output }) => (code === 0 ? (JSON.parse(output) as { rounds: number }).rounds : -1));
      console.log(`[php files] ${seen.reads} reads by six clients while two PHP workers rewrote the session ${rounds.join(' + ')} times`);
      expect(rounds).toEqual([ROUNDS, ROUNDS]);
      // Every round a PHP request: its counter + 1 kept, as the next request's lock guarantees.
      expect(await counterOf(php.dir, id)).toBe(2 * ROUNDS);
      expect({ signedOut: seen.signedOut, unavailable: seen.unavailable }).toEqual({ signedOut: 0, unavailable: [] });
    }, 120_000);

    /** Holds the session file's lock as PHP does (exclusive flock) while `script` rewrites it; resolves once `ready` holds. */
    const holdLock = async (file: string, script: string, ready: () => Promise<boolean>) => {
      // --close: the lock is flock's own, so ending its process group ends the lock with it.
      const holder = spawn('flock', ['--exclusive', '--close', file, 'sh', '-c', script], { stdio: 'ignore', detached: true });
      const exited = once(holder, 'exit');
      while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 5));
      return { holder, exited };
    };

    it("a half-written file is read again under PHP's lock: the write is waited for, never answered as signed out", async () => {
      const id = 'f'.repeat(26);
      const file = join(php.dir, `sess_${id}`);
      await writeFile(file, 'user|a:1:{s:2:"id";i:6;}');
      const partial = 'user|a:1:{s:2:"id";';
      // A PHP request's write, stretched: truncated and half written, the lock held 300 ms, then the rest.
      const { exited } = await holdLock(
        file,
        `printf '%s' '${partial}' > ${file}; sleep 0.3; printf '%s' 'user|a:1:{s:2:"id";i:7;}' > ${file}`,
        async () => (await readFile(file, 'utf8')) === partial,
      );
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({
        saveHandler: 'files',
        savePath: php.dir,
        touch: 'none',
        onProblem: (problem) => problems.push(problem),
      });
      expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '7' });
      expect(problems).toEqual([]);
      await exited;
    });

    it('a lock held past the wait (2 s) with the file empty is an outage (503), not a sign-out', async () => {
      const id = 'g'.repeat(26);
      const file = join(php.dir, `sess_${id}`);
      await writeFile(file, 'user|a:1:{s:2:"id";i:6;}');
      const { holder, exited } = await holdLock(file, `: > ${file}; sleep 30`, async () => (await stat(file)).size === 0);
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir, touch: 'none' });
      await expect(adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
      process.kill(-holder.pid!, 'SIGKILL');
      await exited;
      // The lock released, the empty file is what it is: no user, at once.
      expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toBeUndefined();
    });
  });

  describe('what it refuses to read', () => {
    const php = phpWithSessionDir();

    it('hostile ids touch no file: a valid session planted where the id would lead is neither read nor touched', async () => {
      const valid = (await php.get<Shown>('session.php?action=signin&id=12')).cookie!.split('=')[1]!;
      const data = await readFile(join(php.dir, `sess_${valid}`));
      const past = new Date(Math.floor(Date.now() / 1000 - 60) * 1000);
      // Where "../../etc/passwd", a 21-character id and a non-alphabet id would lead if used.
      await mkdir(join(php.dir, 'sess_..'));
      await mkdir(join(php.dir, 'etc'));
      const planted = [
        join(php.dir, 'etc', 'passwd'),
        join(php.dir, `sess_${'a'.repeat(21)}`),
        join(php.dir, `sess_${'a'.repeat(25)}.b`),
        join(php.dir, `sess_${'a'.repeat(26)} `),
      ];
      for (const file of planted) {
        await writeFile(file, data);
        await utimes(file, past, past);
      }
      const listing = async () => (await readdir(php.dir, { recursive: true })).sort();
      const before = await listing();
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir });
      for (const id of [
        '../../etc/passwd',
        'a'.repeat(21),
        `${'a'.repeat(25)}.b`,
        `${'a'.repeat(26)} `,
        'x'.repeat(300),
        `${'a'.repeat(26)}%00`,
        '%2e%2e%2fetc%2fpasswd',
      ]) {
        expect(await adapter.sessionFor(`PHPSESSID=${encodeURIComponent(id)}`).currentUser(), id).toBeUndefined();
        expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser(), id).toBeUndefined();
      }
      expect(await listing()).toEqual(before);
      for (const file of planted) expect((await stat(file)).mtimeMs).toBe(past.getTime());
      // The same data under a valid id is read: the refusals above were the id's.
      expect(await adapter.sessionFor(`PHPSESSID=${valid}`).currentUser()).toMatchObject({ id: '12' });
    });

    it('refuses a planted symlink or a file owned by another user, as PHP does', async () => {
      const valid = (await php.get<Shown>('session.php?action=signin&id=13')).cookie!.split('=')[1]!;
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir, onProblem: (problem) => problems.push(problem) });
      const linked = 'L'.repeat(26);
      await symlink(join(php.dir, `sess_${valid}`), join(php.dir, `sess_${linked}`));
      expect(await adapter.sessionFor(`PHPSESSID=${linked}`).currentUser()).toBeUndefined();
      const foreign = 'F'.repeat(26);
      await writeFile(join(php.dir, `sess_${foreign}`), 'user|a:1:{s:2:"id";i:1;}');
      await chown(join(php.dir, `sess_${foreign}`), 4242, 4242);
      expect(await adapter.sessionFor(`PHPSESSID=${foreign}`).currentUser()).toBeUndefined();
      expect(problems.map((problem) => problem.kind)).toEqual(['not-a-regular-file', 'foreign-owner']);
      expect(problems[1]?.detail).toBe(`owned by uid 4242, the service runs as uid ${process.geteuid!()}: run it as the PHP user`);
    });

    it('an undecodable, empty or oversized file is no user, reported by hash', async () => {
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({
        saveHandler: 'files',
        savePath: php.dir,
        maxBytes: 64,
        onProblem: (problem) => problems.push(problem),
      });
      const cases = { U: 'user|a:1:{s:2:"id";i:1;', E: '', O: `user|s:100:"${'x'.repeat(100)}";` };
      for (const [letter, content] of Object.entries(cases)) {
        await writeFile(join(php.dir, `sess_${letter.repeat(26)}`), content);
        expect(await adapter.sessionFor(`PHPSESSID=${letter.repeat(26)}`).currentUser()).toBeUndefined();
      }
      expect(problems.map((problem) => problem.kind)).toEqual(['undecodable', 'empty', 'oversized']);
      expect(JSON.stringify(problems)).not.toContain('U'.repeat(26));
    });

    it('when the file times cannot be set (not the owner: EPERM), says so once and keeps answering', async () => {
      const id = 'P'.repeat(26);
      const file = join(php.dir, `sess_${id}`);
      await writeFile(file, 'user|a:1:{s:2:"id";i:14;}');
      const due = new Date(Date.now() - 600_000);
      await utimes(file, due, due);
      // An immutable file refuses utimes with EPERM even to root, as a file of another owner does to a non-root service.
      execFileSync('chattr', ['+i', file]);
      try {
        const problems: PhpSessionProblem[] = [];
        const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir, onProblem: (problem) => problems.push(problem) });
        for (let i = 0; i < 3; i += 1) expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '14' });
        expect(problems).toEqual([
          { kind: 'touch-refused', detail: expect.stringMatching(/^EPERM: .*run the service as the PHP user/) as string },
        ]);
      } finally {
        execFileSync('chattr', ['-i', file]);
      }
    });

    it('on a read-only directory (EROFS) the failed touch is said once a minute, with how many were not said; every request answered', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'php-sess-ro-'));
      const id = 'Q'.repeat(26);
      await writeFile(join(dir, `sess_${id}`), 'user|a:1:{s:2:"id";i:15;}');
      // Touched ten minutes ago: every request's touch is due.
      let now = Date.now() + 600_000;
      // A read-only bind mount of the directory on itself (the test runs as root): writes fail with EROFS.
      execFileSync('mount', ['--bind', dir, dir]);
      try {
        execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
        const problems: PhpSessionProblem[] = [];
        const adapter = phpSessions({
          saveHandler: 'files',
          savePath: dir,
          now: () => now,
          onProblem: (problem) => problems.push(problem),
        });
        for (let i = 0; i < 40; i += 1) expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '15' });
        const said = { kind: 'touch-failed', detail: 'EROFS', sessionHash: expect.stringMatching(/^[0-9a-f]{16}$/) as string };
        expect(problems).toEqual([said]);
        now += 60_000;
        expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '15' });
        expect(problems).toEqual([said, { ...said, unreported: 39 }]);
      } finally {
        execFileSync('umount', [dir]);
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('a session rewritten at the same size, in the same clock tick as the read before, is read anew', async () => {
      const id = 'R'.repeat(26);
      const file = join(php.dir, `sess_${id}`);
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir });
      for (const user of [21, 22, 23, 24]) {
        await writeFile(file, `user|a:1:{s:2:"id";i:${user};}`);
        expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: String(user) });
      }
      // Written a while ago, then rewritten: the file's times change, and the read follows.
      const old = new Date(Date.now() - 120_000);
      await utimes(file, old, old);
      expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '24' });
      await writeFile(file, 'user|a:1:{s:2:"id";i:25;}');
      expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '25' });
      await rm(file);
      expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toBeUndefined();
    });

    it('reads a user kept as an object, private id included, as plain data with no prototype games', async () => {
      const id = 'O'.repeat(26);
      await writeFile(
        join(php.dir, `sess_${id}`),
        'user|O:4:"User":3:{s:8:"\0User\0id";i:9007199254740993;s:9:"__proto__";a:1:{s:5:"admin";b:1;}s:7:"\0*\0tags";a:1:{i:0;s:1:"x";}}',
      );
      const user = await phpSessions({ saveHandler: 'files', savePath: php.dir }).sessionFor(`PHPSESSID=${id}`).currentUser();
      expect(user?.id).toBe('9007199254740993');
      expect(Object.getPrototypeOf(user)).toBe(Object.prototype);
      expect((user as unknown as { admin?: unknown }).admin).toBeUndefined();
      expect(Object.keys(user!)).toEqual(['id', '__proto__', 'tags']);
    });

    it('an id of valid characters too long for a file name (256) is no session, not an outage', async () => {
      const adapter = phpSessions({ saveHandler: 'files', savePath: php.dir });
      expect(await adapter.sessionFor(`PHPSESSID=${'z'.repeat(256)}`).currentUser()).toBeUndefined();
    });

    it('a missing session directory is an outage (503), not a sign-out; back, it works', async () => {
      const gone = join(php.dir, 'not-yet');
      const adapter = phpSessions({ saveHandler: 'files', savePath: gone });
      await expect(adapter.sessionFor(`PHPSESSID=${'a'.repeat(26)}`).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
      await expect(adapter.ping()).rejects.toBeInstanceOf(SessionUnavailableError);
      await mkdir(gone);
      expect(await adapter.sessionFor(`PHPSESSID=${'a'.repeat(26)}`).currentUser()).toBeUndefined();
      await adapter.ping();
    });

    it('refuses touch "activity" with files at construction, with a line the server can print', () => {
      expect(() =>
        phpSessions({ saveHandler: 'files', savePath: php.dir, touch: 'activity', activityKey: 'LAST_ACTIVITY', idleSeconds: 60 }),
      ).toThrow(/PHP_SESSION_TOUCH=activity is not supported with the files handler/);
    });
  });
});

async function counterOf(dir: string, id: string): Promise<number> {
  const data = await readFile(join(dir, `sess_${id}`), 'latin1');
  const match = /counter\|i:(\d+);/.exec(data);
  return match ? Number(match[1]) : 0;
}
