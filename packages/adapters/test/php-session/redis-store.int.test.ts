import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import {
  decodePhpSession,
  phpSessions,
  SESSION_FORMATS,
  type PhpSessionFormat,
  type PhpSessionProblem,
  type PhpSessionsOptions,
} from '../../src/php-session.js';
import { freePort, iniFlags, phpFixtures, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import { restartablePort } from '../../src/testing/restartable-port.js';
import { redisCommandsDuring } from '../../src/testing/redis-monitor.js';
import { redisProcess, redisServerAvailable } from '../../src/testing/redis-process.js';
import { missing, missingPhp } from '../../src/testing/index.js';

interface Shown {
  id: string;
  session: Record<string, unknown> | null;
}

const DATABASE = 2;
const PREFIX = 'app1_';

describe.skipIf(missingPhp('redis', 'igbinary') || missing('redis-server', redisServerAvailable()))(
  'PHP sessions in Redis (phpredis), written by a real PHP',
  () => {
    let server: ReturnType<typeof redisProcess>;
    let redis: Redis;
    let savePath: string;
    const phps: PhpServer[] = [];
    let scratch: string;

    beforeAll(async () => {
      server = redisProcess(await restartablePort());
      await server.start();
      redis = new Redis(`${server.url}/${DATABASE}`);
      savePath = `tcp://127.0.0.1:${new URL(server.url).port}?prefix=${PREFIX}&database=${DATABASE}&timeout=2`;
      scratch = await mkdtemp(join(tmpdir(), 'php-sess-redis-'));
    });
    afterAll(async () => {
      await Promise.all(phps.map((php) => php.stop()));
      redis.disconnect();
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    const start = async (format: PhpSessionFormat) => {
      const php = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': savePath, 'session.serialize_handler': format });
      phps.push(php);
      return php;
    };
    const adapterFor = (format: PhpSessionFormat, problems: PhpSessionProblem[] = [], options: Partial<PhpSessionsOptions> = {}) =>
      phpSessions({
        saveHandler: 'redis',
        savePath,
        serializeHandler: format,
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: 1800,
        onProblem: (problem) => problems.push(problem),
        ...options,
      });
    const keyOf = (cookie: string | undefined) => `${PREFIX}${cookie!.split('=')[1]!}`;

    for (const format of SESSION_FORMATS) {
      describe(format, () => {
        it('reads the user PHP signed in and nothing after PHP signs out; creates no key', async () => {
          const php = await start(format);
          const adapter = adapterFor(format);
          await adapter.ready(2_000);
          const { cookie } = await php.get('session.php?action=signin&id=9007199254740993');
          expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9007199254740993', nombre: 'Ana Núñez' });
          await php.get('session.php?action=signout', cookie);
          expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
          expect(await redis.exists(keyOf(cookie))).toBe(0);
          await adapter.close();
        });

        it('idle past the limit is signed out; the expiry touch moves the TTL PHP sees', async () => {
          const php = await start(format);
          const problems: PhpSessionProblem[] = [];
          const adapter = adapterFor(format, problems);
          await adapter.ready(2_000);
          const { cookie } = await php.get('session.php?action=signin&id=21');
          const key = keyOf(cookie);
          const ttl = async () =>
            (await php.get<{ ttl: number }>(`expiry.php?handler=redis&port=${new URL(server.url).port}&db=${DATABASE}&key=${key}`)).body
              .ttl;
          await redis.expire(key, 100);
          expect(await ttl()).toBeLessThanOrEqual(100);
          expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '21' });
          expect(await ttl()).toBeGreaterThan(1400);
          await php.get(`session.php?action=activity&at=${Math.floor(Date.now() / 1000) - 1900}`, cookie);
          await redis.expire(key, 100);
          expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
          expect(problems.map((problem) => problem.kind)).toEqual(['idle']);
          // An idle session is not kept alive.
          expect(await ttl()).toBeLessThanOrEqual(100);
          await adapter.close();
        });
      });
    }

    it('activity touch rewrites only the activity value, byte for byte, and PHP reads the session back intact', async () => {
      for (const format of SESSION_FORMATS) {
        const php = await start(format);
        const { cookie } = await php.get('session.php?action=signin&id=31');
        const key = keyOf(cookie);
        const nowSeconds = Math.floor(Date.now() / 1000);
        const { body: before } = await php.get<Shown>(`session.php?action=activity&at=${nowSeconds - 100}`, cookie);
        const rawBefore = (await redis.getBuffer(key))!;
        await redis.expire(key, 100);
        const adapter = adapterFor(format, [], { touch: 'activity', now: () => nowSeconds * 1000 });
        await adapter.ready(2_000);
        expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '31' });
        const rawAfter = (await redis.getBuffer(key))!;
        const span = decodePhpSession(rawBefore, format).spans.get('LAST_ACTIVITY')!;
        // The int as PHP writes it: `i:N;`, or igbinary's 32-bit positive int (0a, then big-endian).
        const written =
          format === 'igbinary' ? `\x0a${Buffer.from(Uint32Array.of(nowSeconds).buffer).reverse().toString('latin1')}` : `i:${nowSeconds};`;
        expect(rawAfter.toString('latin1')).toBe(
          rawBefore.subarray(0, span.start).toString('latin1') + written + rawBefore.subarray(span.end).toString('latin1'),
        );
        expect(await redis.ttl(key)).toBeGreaterThan(1400);
        const { body: after } = await php.get<Shown>('session.php?action=show', cookie);
        expect(after.session).toEqual({ ...before.session, LAST_ACTIVITY: nowSeconds });
        await adapter.close();
      }
    });

    for (const format of ['php', 'igbinary'] as const) {
      it(`activity touch yields to concurrent PHP writes: no PHP write is ever lost (${format})`, async () => {
        const php = await start(format);
        const { cookie } = await php.get('session.php?action=signin&id=41');
        const id = cookie!.split('=')[1]!;
        let clock = Math.floor(Date.now() / 1000);
        const adapter = adapterFor(format, [], { touch: 'activity', now: () => (clock += 1) * 1000, idleSeconds: 10 ** 9 });
        await adapter.ready(2_000);
        const stopFile = join(scratch, `stop-writer-${format}`);
        const writer = spawn(
          'php',
          [
            ...iniFlags({ 'session.save_handler': 'redis', 'session.save_path': savePath, 'session.serialize_handler': format }),
            `${phpFixtures}writer.php`,
            id,
            stopFile,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        // Listened for from the start: the writer may end on its own (its safety deadline) before it is told to.
        const exited = once(writer, 'exit');
        let output = '';
        writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        writer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const counter = async () => {
          const bytes = await redis.getBuffer(keyOf(cookie));
          return bytes ? (decodePhpSession(bytes, format).vars.get('counter') ?? 0) : 0;
        };
        // Counts, not a clock: a busy machine makes each read slower, never fewer (the test's time limit bounds a hang).
        while ((await counter()) === 0) await adapter.sessionFor(cookie).currentUser();
        for (let i = 0; i < 300; i += 1) expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '41' });
        await writeFile(stopFile, '');
        await exited;
        const { rounds, lost } = JSON.parse(output) as { rounds: number; lost: number };
        expect(rounds).toBeGreaterThan(10);
        expect(lost).toBe(0);
        // The adapter did write between PHP's writes (the activity time moved past the sign-in's).
        const session = decodePhpSession((await redis.getBuffer(keyOf(cookie)))!, format).vars;
        expect(session.get('counter')).toBe(rounds);
        await adapter.sessionFor(cookie).currentUser();
        expect(decodePhpSession((await redis.getBuffer(keyOf(cookie)))!, format).vars.get('LAST_ACTIVITY')).toBe(clock);
        await adapter.close();
      }, 60_000);
    }

    it('a 50 MB value under a valid id never crosses the wire: refused by its length while the other user reads on', async () => {
      const php = await start('php');
      const problems: PhpSessionProblem[] = [];
      const adapter = adapterFor('php', problems, { touch: 'activity', now: () => Date.now() + 10_000 });
      await adapter.ready(2_000);
      const { cookie } = await php.get('session.php?action=signin&id=41');
      const huge = `${PREFIX}${'h'.repeat(26)}`;
      await redis.set(huge, Buffer.alloc(50 * 1024 * 1024, 0x61));
      const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec(await redis.info('stats'))?.[1]);
      const before = await sent();
      const reads = Array.from({ length: 20 }, (_, i) => adapter.sessionFor(i % 2 ? `PHPSESSID=${'h'.repeat(26)}` : cookie).currentUser());
      const users = await Promise.all(reads);
      expect(users.map((user) => user?.id)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? undefined : '41')));
      // What Redis sent to every client meanwhile (this test's INFO replies included): nothing near the value.
      expect((await sent()) - before).toBeLessThan(1024 * 1024);
      expect(problems.filter((problem) => problem.kind === 'oversized')).toHaveLength(10);
      expect(problems.find((problem) => problem.kind === 'oversized')?.detail).toBe(`${50 * 1024 * 1024} bytes`);
      expect(await redis.strlen(huge)).toBe(50 * 1024 * 1024);
      await redis.del(huge);
      await adapter.close();
    });

    it('moves the expiry at most once a minute, as the files handler does: a TTL moved under a minute ago is left', async () => {
      const adapter = adapterFor('php');
      await adapter.ready(2_000);
      const key = `${PREFIX}${'m'.repeat(26)}`;
      const cookie = `PHPSESSID=${'m'.repeat(26)}`;
      await redis.set(key, `user|a:1:{s:2:"id";i:4;}LAST_ACTIVITY|i:${Math.floor(Date.now() / 1000)};`, 'EX', 1440 - 50);
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '4' });
      expect(await redis.ttl(key)).toBeLessThanOrEqual(1440 - 50);
      await redis.expire(key, 1440 - 61);
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '4' });
      expect(await redis.ttl(key)).toBeGreaterThan(1440 - 50);
      await redis.del(key);
      await adapter.close();
    });

    it('hostile ids send no command at all to Redis', async () => {
      const adapter = adapterFor('php');
      await adapter.ready(2_000);
      const valid = 'v'.repeat(26);
      await redis.set(`${PREFIX}${valid}`, `user|a:1:{s:2:"id";i:1;}LAST_ACTIVITY|i:${Math.floor(Date.now() / 1000)};`);
      const seen = await redisCommandsDuring(server.url, async () => {
        // A valid id before and after: its commands show the monitor was live all along.
        expect(await adapter.sessionFor(`PHPSESSID=${valid}`).currentUser()).toMatchObject({ id: '1' });
        for (const id of [
          '../../etc/passwd',
          'x'.repeat(300),
          'a'.repeat(21),
          `${'a'.repeat(25)}*`,
          `${'a'.repeat(25)}\r\nFLUSHALL`,
          `${'a'.repeat(26)} `,
        ]) {
          expect(await adapter.sessionFor(`PHPSESSID=${encodeURIComponent(id)}`).currentUser()).toBeUndefined();
        }
        expect(await adapter.sessionFor(`PHPSESSID=${valid}`).currentUser()).toMatchObject({ id: '1' });
      });
      // The read is one bounded script (its STRLEN, GET and PTTL show inside it), then PHP's own EXPIRE
      // for a key without one; the second read finds the expiry just moved and leaves it.
      const adapterCommands = seen.filter((args) => args.some((arg) => arg.startsWith(PREFIX)) && args[0] !== 'set');
      const read = [`script ${PREFIX}${valid} 1048576`, `STRLEN ${PREFIX}${valid}`, `GET ${PREFIX}${valid}`, `PTTL ${PREFIX}${valid}`];
      expect(adapterCommands.map((args) => (args[0]?.startsWith('eval') ? ['script', ...args.slice(3)] : args).join(' '))).toEqual([
        ...read,
        `expire ${PREFIX}${valid} 1440`,
        ...read,
      ]);
      expect(seen.filter((args) => args.some((arg) => /etc|xxxxx|FLUSHALL|\*/.test(arg)))).toEqual([]);
      await adapter.close();
    });

    it('Redis stopped: SessionUnavailableError (503) and ping rejects; back: works again', async () => {
      const php = await start('php');
      const { cookie } = await php.get('session.php?action=signin&id=51');
      const adapter = adapterFor('php');
      await adapter.ready(2_000);
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '51' });
      await server.stop();
      await expect(adapter.sessionFor(cookie).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
      await expect(adapter.ping()).rejects.toBeInstanceOf(SessionUnavailableError);
      await server.start();
      // The data went with the stopped server (no persistence): sign in again through PHP.
      await adapter.ready(5_000).catch(() => undefined);
      for (let i = 0; ; i += 1) {
        try {
          await adapter.ping();
          break;
        } catch (error) {
          if (i > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const again = await php.get('session.php?action=signin&id=52');
      expect(await adapter.sessionFor(again.cookie).currentUser()).toMatchObject({ id: '52' });
      await adapter.close();
    }, 30_000);

    it('with a password, over a unix socket: PHP signs in over TCP with ?auth=, the adapter reads over unix:// with the same auth', async () => {
      const socket = join(scratch, 'redis.sock');
      const guarded = redisProcess(await freePort(), ['--requirepass', 'pa ss&word', '--unixsocket', socket, '--unixsocketperm', '700']);
      await guarded.start();
      try {
        const tcp = `tcp://127.0.0.1:${new URL(guarded.url).port}?auth=${encodeURIComponent('pa ss&word')}`;
        const php = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': tcp });
        phps.push(php);
        const { cookie } = await php.get('session.php?action=signin&id=71');
        const adapter = phpSessions({ saveHandler: 'redis', savePath: `unix://${socket}?auth=${encodeURIComponent('pa ss&word')}` });
        // Bounds only a hang: a busy machine's fresh redis-server may take seconds to answer.
        await adapter.ready(10_000);
        expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '71' });
        expect(adapter.describe()).not.toContain('pa ss');
        await adapter.close();
        const wrong = phpSessions({ saveHandler: 'redis', savePath: `unix://${socket}?auth=wrong`, onConnectionError: () => undefined });
        await expect(wrong.ready(1_000)).rejects.toBeInstanceOf(SessionUnavailableError);
        await expect(wrong.sessionFor(cookie).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
        await wrong.close();
      } finally {
        await guarded.stop();
      }
    }, 30_000);
  },
);
