import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { decodePhpSession, phpSessions, type PhpSessionProblem, type PhpSessionsOptions } from '../../src/php-session.js';
import { freePort, iniFlags, phpFixtures, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import { memcachedProcess, type MemcachedProcess } from '../../src/testing/memcached-process.js';
import { missingPhp } from '../../src/testing/index.js';
import { phpMemcachedStore } from '../../src/php-session/php-memcached-store.js';
import { createServer, type Socket } from 'node:net';

interface Shown {
  id: string;
  session: Record<string, unknown> | null;
}

const PREFIX = 'app1.sess.';

// Without the memcached daemon (.ci/run installs it) these fail; PHP and its extensions are asked for as services are.
describe.skipIf(missingPhp('memcached', 'igbinary'))('PHP sessions in memcached (php-memcached), written by a real PHP', () => {
  const servers: MemcachedProcess[] = [];
  const phps: PhpServer[] = [];
  let scratch: string;
  let one: MemcachedProcess;
  let savePath: string;

  const started = async () => {
    const server = memcachedProcess(await freePort());
    servers.push(server);
    await server.start();
    return server;
  };
  beforeAll(async () => {
    one = await started();
    savePath = one.address;
    scratch = await mkdtemp(join(tmpdir(), 'php-sess-memcached-'));
  });
  afterAll(async () => {
    await Promise.all(phps.map((php) => php.stop()));
    for (const server of servers) {
      await server.stop();
      server.remove();
    }
    await rm(scratch, { recursive: true, force: true });
  });

  const ini = (path = savePath, format = 'php') => ({
    'session.save_handler': 'memcached',
    'session.save_path': path,
    'session.serialize_handler': format,
    'memcached.sess_prefix': PREFIX,
  });
  const start = async (path = savePath, format = 'php') => {
    const php = await phpServer(ini(path, format));
    phps.push(php);
    return php;
  };
  const adapterFor = (problems: PhpSessionProblem[] = [], options: Partial<PhpSessionsOptions> = {}) =>
    phpSessions({
      saveHandler: 'memcached',
      savePath,
      memcachedPrefix: PREFIX,
      activityKey: 'LAST_ACTIVITY',
      idleSeconds: 1800,
      onProblem: (problem) => problems.push(problem),
      ...options,
    });
  const idOf = (cookie: string | undefined) => cookie!.split('=')[1]!;
  /** The raw value and time to live of a key, as memcached holds them (a meta get). */
  const stored = async (key: string, on = one) => {
    const reply = await on.send(`mg ${key} t v\r\n`, /^(EN\r\n|VA \d+[^\r]*\r\n[\s\S]*\r\n)$/);
    const match = /^VA (\d+) t(-?\d+)\r\n/.exec(reply);
    return match
      ? { ttl: Number(match[2]), value: Buffer.from(reply.slice(match[0].length, match[0].length + Number(match[1])), 'latin1') }
      : undefined;
  };
  const set = (key: string, value: string | Buffer, ttl = 1440, on = one) =>
    on.send(Buffer.concat([Buffer.from(`set ${key} 0 ${ttl} ${Buffer.byteLength(value)}\r\n`), Buffer.from(value), Buffer.from('\r\n')]));

  for (const format of ['php', 'php_serialize', 'php_binary', 'igbinary'] as const) {
    it(`${format}: reads the user PHP signed in and nothing after PHP signs out (key deleted); creates no key`, async () => {
      const php = await start(savePath, format);
      const adapter = adapterFor([], { serializeHandler: format });
      await adapter.ready(2_000);
      const { cookie } = await php.get('session.php?action=signin&id=9007199254740993');
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9007199254740993', nombre: 'Ana Núñez' });
      await php.get('session.php?action=signout', cookie);
      expect(await stored(`${PREFIX}${idOf(cookie)}`)).toBeUndefined();
      expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
      // An unknown id is read, not written.
      expect(await adapter.sessionFor(`PHPSESSID=${'u'.repeat(26)}`).currentUser()).toBeUndefined();
      expect(await stored(`${PREFIX}${'u'.repeat(26)}`)).toBeUndefined();
      await adapter.close();
    });
  }

  it('reads every session where PHP wrote it across 3 servers (libmemcached ketama placement), weights as php.ini has them', async () => {
    const three = [one, await started(), await started()];
    const path = `${three[0]!.address}:3,${three[1]!.address},${three[2]!.address}:2`;
    const written = spawnSync('php', [...iniFlags(ini(path)), `${phpFixtures}many-sessions.php`, '150'], { encoding: 'utf8' });
    expect(written.stderr).toBe('');
    const sessions = JSON.parse(written.stdout) as Array<[string, string]>;
    // PHP spread them over all three: each server holds some.
    const holders = await Promise.all(
      sessions.map(async ([id]) => (await Promise.all(three.map((server) => stored(`${PREFIX}${id}`, server)))).findIndex(Boolean)),
    );
    expect(new Set(holders)).toEqual(new Set([0, 1, 2]));
    const adapter = adapterFor([], { savePath: path });
    await adapter.ready(2_000);
    const users = await Promise.all(sessions.map(async ([id]) => (await adapter.sessionFor(`PHPSESSID=${id}`).currentUser())?.id));
    expect(users).toEqual(sessions.map(([, user]) => user));
    await adapter.close();
  });

  it('a value over PHP_SESSION_MAX_BYTES is refused by the length memcached announces, never transferred; other users read on', async () => {
    // Items up to 64 MB: the value is far beyond what the socket buffers hold.
    const big = memcachedProcess(await freePort(), ['-I', '64m', '-m', '256']);
    servers.push(big);
    await big.start();
    const php = await start(big.address);
    const problems: PhpSessionProblem[] = [];
    const adapter = adapterFor(problems, { savePath: big.address });
    await adapter.ready(2_000);
    const { cookie } = await php.get('session.php?action=signin&id=41');
    const huge = 'h'.repeat(26);
    const size = 50 * 1024 * 1024;
    expect(await set(`${PREFIX}${huge}`, Buffer.alloc(size, 0x61), 1440, big)).toBe('STORED\r\n');
    const sent = async () => Number(/STAT bytes_written (\d+)/.exec(await big.send('stats\r\n', /END\r\n$/))?.[1]);
    const before = await sent();
    const users = await Promise.all(
      Array.from({ length: 10 }, (_, i) => adapter.sessionFor(i % 2 ? `PHPSESSID=${huge}` : cookie).currentUser()),
    );
    expect(users.map((user) => user?.id)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? undefined : '41')));
    // What memcached wrote to every client meanwhile: the socket buffers' worth before each drop, not the five values.
    expect((await sent()) - before).toBeLessThan(size);
    expect(problems.filter((problem) => problem.kind === 'oversized')).toHaveLength(5);
    expect(problems.find((problem) => problem.kind === 'oversized')?.detail).toBe(`${size} bytes`);
    await adapter.close();
  });

  it('an expired session is signed out; the expiry touch moves the TTL PHP set, at most once a minute', async () => {
    const php = await start();
    const adapter = adapterFor();
    await adapter.ready(2_000);
    const { cookie } = await php.get('session.php?action=signin&id=21');
    const key = `${PREFIX}${idOf(cookie)}`;
    expect((await stored(key))?.ttl).toBeGreaterThan(1400);
    await one.send(`touch ${key} ${1440 - 50}\r\n`);
    expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '21' });
    expect((await stored(key))?.ttl).toBeLessThanOrEqual(1440 - 50);
    await one.send(`touch ${key} 100\r\n`);
    expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '21' });
    expect((await stored(key))?.ttl).toBeGreaterThan(1400);
    // Expired: memcached no longer has it.
    await one.send(`touch ${key} -1\r\n`);
    expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
    expect(await stored(key)).toBeUndefined();
    await adapter.close();
  });

  it("a read that finds PHP's lock waits for PHP's request: a sign-out in progress is answered signed out; waiters are bounded (503 Retry-After)", async () => {
    const php = await start();
    const waiting: number[] = [];
    const adapter = adapterFor([], { lockWaiters: 1, onLockWaiters: (count) => waiting.push(count) });
    await adapter.ready(2_000);
    const { cookie } = await php.get('session.php?action=signin&id=51');
    const stop = join(scratch, 'stop-holder');
    const holder = spawn('php', [...iniFlags(ini()), `${phpFixtures}hold-session.php`, idOf(cookie), stop, 'signout'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(holder, 'exit');
    await once(holder.stdout, 'data');
    expect(await stored(`${PREFIX}lock.${idOf(cookie)}`)).toBeDefined();
    const read = adapter.sessionFor(cookie).currentUser();
    while (!waiting.includes(1)) await new Promise((resolve) => setImmediate(resolve));
    // One waits already: the next is refused with a retry hint rather than queued.
    await expect(adapter.sessionFor(cookie).currentUser()).rejects.toMatchObject({
      name: SessionUnavailableError.name,
      retryAfterSeconds: 1,
    });
    await writeFile(stop, '');
    expect(await read).toBeUndefined();
    await exited;
    expect(waiting.at(-1)).toBe(0);
    await rm(stop);
    await adapter.close();
  });

  /** A real PHP request holding session `id` open (php-memcached's lock key) until `stop` exists (`hold-session.php`). */
  const holding = async (id: string, stop: string) => {
    const holder = spawn('php', [...iniFlags(ini()), `${phpFixtures}hold-session.php`, id, stop, 'keep'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(holder, 'exit');
    await once(holder.stdout, 'data');
    return { exited };
  };

  it("PHP's lock key with no session key (a session PHP opened with no value yet): no user at once, the lock not waited for", async () => {
    const waiting: number[] = [];
    const adapter = adapterFor([], { onLockWaiters: (count) => waiting.push(count) });
    await adapter.ready(2_000);
    const id = 'fresh'.repeat(5) + 'f';
    const stop = join(scratch, 'stop-fresh');
    const { exited } = await holding(id, stop);
    try {
      expect(await stored(`${PREFIX}lock.${id}`)).toBeDefined();
      expect(await Promise.all(Array.from({ length: 20 }, () => adapter.sessionFor(`PHPSESSID=${id}`).currentUser()))).toEqual(
        Array.from({ length: 20 }, () => undefined),
      );
      expect(waiting).toEqual([]);
    } finally {
      await writeFile(stop, '');
      await exited;
      await rm(stop);
      await one.send(`delete ${PREFIX}${id}\r\n`);
      await adapter.close();
    }
  });

  it("one client's 16 looping reads of two sessions PHP holds for it (one with no value), 20 users whose sessions PHP holds a moment: no user 503, each signed in", async () => {
    const php = await start();
    let waiting = 0;
    const adapter = adapterFor([], { onLockWaiters: (count) => (waiting = count) });
    await adapter.ready(2_000);
    const attackerIds = ['attacker'.repeat(3) + 'aa', idOf((await php.get('session.php?action=signin&id=66')).cookie)];
    const victims: { id: string; user: string }[] = [];
    for (let i = 0; i < 20; i += 1)
      victims.push({ id: idOf((await php.get(`session.php?action=signin&id=${100 + i}`)).cookie), user: String(100 + i) });
    const stopAttacker = join(scratch, 'stop-attacker');
    const stopVictims = join(scratch, 'stop-victims');
    const attackerHolds = await Promise.all(attackerIds.map((id) => holding(id, stopAttacker)));
    let attacking = true;
    let attackerAnswers = 0;
    const loops = Array.from({ length: 16 }, async (_, i) => {
      while (attacking) {
        await adapter
          .sessionFor(`PHPSESSID=${attackerIds[i % 2]!}`, '203.0.113.66')
          .currentUser()
          .catch(() => undefined);
        attackerAnswers += 1;
      }
    });
    try {
      // Its first answers: the session with no value at once (turned away, where its places were all the instance's).
      while (attackerAnswers < 8) await new Promise((resolve) => setTimeout(resolve, 5));
      const victimHolds = await Promise.all(victims.map(({ id }) => holding(id, stopVictims)));
      // Each user's page: two requests at once, from the user's own address.
      const answers = Promise.all(
        victims.flatMap(({ id }, i) =>
          [1, 2].map(() =>
            adapter
              .sessionFor(`PHPSESSID=${id}`, `198.51.100.${i + 1}`)
              .currentUser()
              .then(
                (user) => user?.id,
                (error: unknown) => (error as Error).message,
              ),
          ),
        ),
      );
      // PHP's requests end once the users' reads wait on them (or, if they never all do, after a bound on a hang).
      const deadline = Date.now() + 5_000;
      while (waiting < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      await writeFile(stopVictims, '');
      expect(await answers).toEqual(victims.flatMap(({ user }) => [user, user]));
      await Promise.all(victimHolds.map(({ exited }) => exited));
    } finally {
      attacking = false;
      await writeFile(stopAttacker, '');
      await writeFile(stopVictims, '');
      await Promise.all(loops);
      await Promise.all(attackerHolds.map(({ exited }) => exited));
      await rm(stopAttacker);
      await rm(stopVictims);
      await adapter.close();
    }
  }, 60_000);

  it('a lock PHP never releases makes the read unavailable (503) within the bound, never a stale answer', async () => {
    const adapter = adapterFor();
    await adapter.ready(2_000);
    const id = 'l'.repeat(26);
    await set(`${PREFIX}${id}`, `user|a:1:{s:2:"id";i:4;}LAST_ACTIVITY|i:${Math.floor(Date.now() / 1000)};`);
    await one.send(`add ${PREFIX}lock.${id} 0 0 1\r\n1\r\n`);
    await expect(adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
    await one.send(`delete ${PREFIX}lock.${id}\r\n`);
    expect(await adapter.sessionFor(`PHPSESSID=${id}`).currentUser()).toMatchObject({ id: '4' });
    await one.send(`delete ${PREFIX}${id}\r\n`);
    await adapter.close();
  });

  it('activity touch rewrites only the activity value, byte for byte, and PHP reads the session back intact', async () => {
    const php = await start();
    const { cookie } = await php.get('session.php?action=signin&id=31');
    const key = `${PREFIX}${idOf(cookie)}`;
    const nowSeconds = Math.floor(Date.now() / 1000);
    const { body: before } = await php.get<Shown>(`session.php?action=activity&at=${nowSeconds - 100}`, cookie);
    const rawBefore = (await stored(key))!.value;
    await one.send(`touch ${key} 100\r\n`);
    const adapter = adapterFor([], { touch: 'activity', now: () => nowSeconds * 1000 });
    await adapter.ready(2_000);
    expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '31' });
    const after = (await stored(key))!;
    const span = decodePhpSession(rawBefore, 'php').spans.get('LAST_ACTIVITY')!;
    expect(after.value.toString('latin1')).toBe(
      rawBefore.subarray(0, span.start).toString('latin1') + `i:${nowSeconds};` + rawBefore.subarray(span.end).toString('latin1'),
    );
    expect(after.ttl).toBeGreaterThan(1400);
    const { body: shown } = await php.get<Shown>('session.php?action=show', cookie);
    expect(shown.session).toEqual({ ...before.session, LAST_ACTIVITY: nowSeconds });
    await adapter.close();
  });

  it('activity touch yields to concurrent PHP writes (cas, and PHP’s lock): no PHP write is ever lost', async () => {
    const php = await start();
    const { cookie } = await php.get('session.php?action=signin&id=41');
    const id = idOf(cookie);
    let clock = Math.floor(Date.now() / 1000);
    const adapter = adapterFor([], { touch: 'activity', now: () => (clock += 1) * 1000, idleSeconds: 10 ** 9 });
    await adapter.ready(2_000);
    const stopFile = join(scratch, 'stop-writer');
    const writer = spawn('php', [...iniFlags(ini()), `${phpFixtures}writer.php`, id, stopFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(writer, 'exit');
    let output = '';
    writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    writer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const counter = async () =>
      Number(/counter\|i:(\d+);/.exec((await stored(`${PREFIX}${id}`))?.value.toString('latin1') ?? '')?.[1] ?? 0);
    const read = () =>
      adapter
        .sessionFor(cookie)
        .currentUser()
        .catch((error: unknown) => error);
    while ((await counter()) === 0) await read();
    let answered = 0;
    for (let i = 0; i < 300; i += 1) {
      const user = await read();
      // A read may meet PHP's lock held past the bound on a loaded machine (503): never a wrong user.
      if (!(user instanceof SessionUnavailableError)) {
        expect(user).toMatchObject({ id: '41' });
        answered += 1;
      }
    }
    expect(answered).toBeGreaterThan(0);
    await writeFile(stopFile, '');
    await exited;
    const { rounds, lost } = JSON.parse(output) as { rounds: number; lost: number };
    expect(rounds).toBeGreaterThan(10);
    expect(lost).toBe(0);
    const session = decodePhpSession((await stored(`${PREFIX}${id}`))!.value, 'php').vars;
    expect(session.get('counter')).toBe(rounds);
    // With PHP done, the activity time is written.
    await adapter.sessionFor(cookie).currentUser();
    expect(decodePhpSession((await stored(`${PREFIX}${id}`))!.value, 'php').vars.get('LAST_ACTIVITY')).toBe(clock);
    await rm(stopFile);
    await adapter.close();
  }, 60_000);

  it('a server that takes connections and never answers: every read is unavailable (503) within the command timeout', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const store = phpMemcachedStore({
      servers: [{ host: '127.0.0.1', port }],
      prefix: PREFIX,
      gcMaxLifetimeSeconds: 1440,
      maxBytes: 4096,
      maxLockWaiters: 10,
      now: Date.now,
      commandTimeoutMs: 300,
    });
    const started = performance.now();
    const reads = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => store.read(`silent${i}${'s'.repeat(20)}`)));
    const took = performance.now() - started;
    expect(reads.every((read) => read.status === 'rejected' && read.reason instanceof SessionUnavailableError)).toBe(true);
    // The command's 300 ms, once more for the reads that waited for a batch, and the deadline checks' slack.
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(1_500);
    await store.close();
    for (const socket of held) socket.destroy();
    silent.close();
  });

  it('memcached unreachable: reads are unavailable (503), not signed out, and ping fails', async () => {
    const gone = memcachedProcess(await freePort());
    const adapter = adapterFor([], { savePath: gone.address });
    await expect(adapter.ping()).rejects.toBeInstanceOf(SessionUnavailableError);
    await expect(adapter.sessionFor(`PHPSESSID=${'x'.repeat(26)}`).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
    await gone.start();
    servers.push(gone);
    await adapter.ready(2_000);
    expect(await adapter.sessionFor(`PHPSESSID=${'x'.repeat(26)}`).currentUser()).toBeUndefined();
    await adapter.close();
  });
});
