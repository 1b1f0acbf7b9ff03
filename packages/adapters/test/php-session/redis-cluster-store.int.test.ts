import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { decodePhpSession, phpSessions, type PhpSessionProblem, type PhpSessionsOptions } from '../../src/php-session.js';
import { iniFlags, phpFixtures, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import { redisClusterAvailable, redisClusterProcess, type RedisClusterProcess } from '../../src/testing/redis-cluster-process.js';
import { redisCommandsDuring } from '../../src/testing/redis-monitor.js';
import { missing, missingPhp } from '../../src/testing/index.js';

interface Shown {
  id: string;
  session: Record<string, unknown> | null;
}

const PREFIX = 'PHPREDIS_CLUSTER_SESSION:';
const FORMATS = ['php', 'igbinary'] as const;

describe.skipIf(missingPhp('redis', 'igbinary') || missing('redis-server and redis-cli', redisClusterAvailable()))(
  'PHP sessions in a Redis Cluster (phpredis rediscluster), written by a real PHP',
  () => {
    let cluster: RedisClusterProcess;
    let redis: Cluster;
    let savePath: string;
    const phps: PhpServer[] = [];
    let scratch: string;

    beforeAll(async () => {
      cluster = await redisClusterProcess({ masters: 3 });
      redis = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
      savePath = `${cluster.seeds}&timeout=2&read_timeout=2`;
      scratch = await mkdtemp(join(tmpdir(), 'php-sess-cluster-'));
    }, 60_000);
    afterAll(async () => {
      await Promise.all(phps.map((php) => php.stop()));
      redis?.disconnect();
      await cluster?.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    const start = async (format: string, path = savePath) => {
      const php = await phpServer({
        'session.save_handler': 'rediscluster',
        'session.save_path': path,
        'session.serialize_handler': format,
      });
      phps.push(php);
      return php;
    };
    const adapterFor = (format: string, problems: PhpSessionProblem[] = [], options: Partial<PhpSessionsOptions> = {}) =>
      phpSessions({
        saveHandler: 'rediscluster',
        savePath,
        serializeHandler: format as 'php',
        activityKey: 'LAST_ACTIVITY',
        idleSeconds: 1800,
        onProblem: (problem) => problems.push(problem),
        ...options,
      });
    const idOf = (cookie: string | undefined) => cookie!.split('=')[1]!;
    const keyOf = (cookie: string | undefined) => `${PREFIX}${idOf(cookie)}`;

    for (const format of FORMATS) {
      describe(format, () => {
        it('reads the user PHP signed in, under PHPREDIS_CLUSTER_SESSION:<id>, and nothing after PHP signs out; creates no key', async () => {
          const php = await start(format);
          const adapter = adapterFor(format);
          await adapter.ready(5_000);
          const { cookie } = await php.get('session.php?action=signin&id=9007199254740993');
          expect(await redis.exists(keyOf(cookie))).toBe(1);
          expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '9007199254740993', nombre: 'Ana Núñez' });
          await php.get('session.php?action=signout', cookie);
          expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
          expect(await redis.exists(keyOf(cookie))).toBe(0);
          await adapter.close();
        });

        it('idle past the limit is signed out; the expiry touch moves the TTL on the node that holds the key', async () => {
          const php = await start(format);
          const problems: PhpSessionProblem[] = [];
          const adapter = adapterFor(format, problems);
          await adapter.ready(5_000);
          const { cookie } = await php.get('session.php?action=signin&id=21');
          const key = keyOf(cookie);
          await redis.expire(key, 100);
          expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '21' });
          expect(await redis.ttl(key)).toBeGreaterThan(1400);
          await php.get(`session.php?action=activity&at=${Math.floor(Date.now() / 1000) - 1900}`, cookie);
          await redis.expire(key, 100);
          expect(await adapter.sessionFor(cookie).currentUser()).toBeUndefined();
          expect(problems.map((problem) => problem.kind)).toEqual(['idle']);
          expect(await redis.ttl(key)).toBeLessThanOrEqual(100);
          await adapter.close();
        });

        it('activity touch rewrites only the activity value, byte for byte, and PHP reads the session back intact', async () => {
          const php = await start(format);
          const { cookie } = await php.get('session.php?action=signin&id=31');
          const key = keyOf(cookie);
          const nowSeconds = Math.floor(Date.now() / 1000);
          const { body: before } = await php.get<Shown>(`session.php?action=activity&at=${nowSeconds - 100}`, cookie);
          const rawBefore = (await redis.getBuffer(key))!;
          await redis.expire(key, 100);
          const adapter = adapterFor(format, [], { touch: 'activity', now: () => nowSeconds * 1000 });
          await adapter.ready(5_000);
          expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '31' });
          const span = decodePhpSession(rawBefore, format).spans.get('LAST_ACTIVITY')!;
          const written =
            format === 'igbinary'
              ? `\x0a${Buffer.from(Uint32Array.of(nowSeconds).buffer).reverse().toString('latin1')}`
              : `i:${nowSeconds};`;
          expect((await redis.getBuffer(key))!.toString('latin1')).toBe(
            rawBefore.subarray(0, span.start).toString('latin1') + written + rawBefore.subarray(span.end).toString('latin1'),
          );
          expect(await redis.ttl(key)).toBeGreaterThan(1400);
          const { body: after } = await php.get<Shown>('session.php?action=show', cookie);
          expect(after.session).toEqual({ ...before.session, LAST_ACTIVITY: nowSeconds });
          await adapter.close();
        });

        it('activity touch beside a PHP writing the session in a loop, while its slot moves to another master and back: no PHP write lost, no read failed', async () => {
          const php = await start(format);
          const { cookie } = await php.get('session.php?action=signin&id=41');
          const id = idOf(cookie);
          let clock = Math.floor(Date.now() / 1000);
          const adapter = adapterFor(format, [], { touch: 'activity', now: () => (clock += 1) * 1000, idleSeconds: 10 ** 9 });
          await adapter.ready(5_000);
          const stopFile = join(scratch, `stop-writer-${format}`);
          const writer = spawn(
            'php',
            [
              ...iniFlags({ 'session.save_handler': 'rediscluster', 'session.save_path': savePath, 'session.serialize_handler': format }),
              `${phpFixtures}writer.php`,
              id,
              stopFile,
            ],
            { stdio: ['ignore', 'pipe', 'pipe'] },
          );
          const exited = once(writer, 'exit');
          let output = '';
          writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
          writer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
          const counter = async () => {
            const bytes = await redis.getBuffer(keyOf(cookie));
            return bytes ? (decodePhpSession(bytes, format).vars.get('counter') ?? 0) : 0;
          };
          while ((await counter()) === 0) await adapter.sessionFor(cookie).currentUser();

          // Reads run without pause on four connections' worth of requests while the slot moves twice.
          let reads = 0;
          const failures: unknown[] = [];
          let moving = true;
          const reader = async () => {
            while (moving) {
              reads += 1;
              try {
                const user = await adapter.sessionFor(cookie).currentUser();
                if (user?.id !== '41') failures.push(new Error(`read ${JSON.stringify(user)}`));
              } catch (error) {
                failures.push(error);
              }
            }
          };
          const readers = Array.from({ length: 4 }, reader);
          try {
            const slot = await cluster.slotOf(keyOf(cookie));
            const home = (await cluster.ownerOf(slot)).port;
            // Each step waits for reads to have happened in the state it left (ASK while migrating, MOVED after).
            const someReads = async () => {
              const from = reads;
              while (reads < from + 20) await new Promise((resolve) => setTimeout(resolve, 5));
            };
            const away = await cluster.migrateSlot(slot, someReads);
            expect(away).not.toBe(home);
            expect((await cluster.ownerOf(slot)).port).toBe(away);
            await cluster.migrateSlot(slot, someReads);
          } finally {
            // Whatever failed above, the readers end (a failed test must not leave them reading).
            moving = false;
          }
          await Promise.all(readers);
          await writeFile(stopFile, '');
          await exited;
          const { rounds, lost } = JSON.parse(output) as { rounds: number; lost: number };
          console.log(
            `[cluster ${format}] ${reads} reads during 2 slot moves: ${failures.length} failed; PHP ${rounds} writes, ${lost} lost`,
          );
          expect(failures).toEqual([]);
          expect(rounds).toBeGreaterThan(10);
          expect(lost).toBe(0);
          const session = decodePhpSession((await redis.getBuffer(keyOf(cookie)))!, format).vars;
          expect(session.get('counter')).toBe(rounds);
          // The adapter did write between PHP's writes.
          await adapter.sessionFor(cookie).currentUser();
          expect(decodePhpSession((await redis.getBuffer(keyOf(cookie)))!, format).vars.get('LAST_ACTIVITY')).toBe(clock);
          await adapter.close();
        }, 120_000);
      });
    }

    it('isolation: an old-style C: value elsewhere is skipped, a scalar id signs in, an oversized value never crosses the wire', async () => {
      const problems: PhpSessionProblem[] = [];
      const adapter = phpSessions({
        saveHandler: 'rediscluster',
        savePath,
        userKey: 'user_id',
        onProblem: (problem) => problems.push(problem),
      });
      await adapter.ready(5_000);
      const [scalar, opaque, huge] = ['s', 'c', 'h'].map((letter) => letter.repeat(26));
      await redis.set(`${PREFIX}${scalar}`, 'user_id|i:17;');
      await redis.set(`${PREFIX}${opaque}`, 'cart|C:8:"Cart9999":5:{hello}user_id|s:2:"18";');
      await redis.set(`${PREFIX}${huge}`, Buffer.alloc(50 * 1024 * 1024, 0x61));
      const owner = (await cluster.ownerOf(await cluster.slotOf(`${PREFIX}${huge}`))).port;
      const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec((await cluster.command(owner, 'INFO', 'stats')) as string)?.[1]);
      const before = await sent();
      const users = await Promise.all(
        Array.from({ length: 30 }, (_, i) => adapter.sessionFor(`PHPSESSID=${[scalar, opaque, huge][i % 3]}`).currentUser()),
      );
      expect(users.map((user) => user?.id)).toEqual(Array.from({ length: 30 }, (_, i) => ['17', '18', undefined][i % 3]));
      expect((await sent()) - before).toBeLessThan(1024 * 1024);
      expect(problems.filter((problem) => problem.kind === 'oversized')).toHaveLength(10);
      expect(problems.find((problem) => problem.kind === 'oversized')?.detail).toBe(`${50 * 1024 * 1024} bytes`);
      for (const id of [scalar, opaque, huge]) await redis.del(`${PREFIX}${id}`);
      await adapter.close();
    });

    it('hostile ids send no command to any node', async () => {
      const adapter = adapterFor('php');
      await adapter.ready(5_000);
      const valid = 'v'.repeat(26);
      await redis.set(`${PREFIX}${valid}`, `user|a:1:{s:2:"id";i:1;}LAST_ACTIVITY|i:${Math.floor(Date.now() / 1000)};`);
      const seen: string[][] = [];
      const watched = cluster.nodes.reduce<() => Promise<void>>(
        (inner, node) => async () => {
          seen.push(...(await redisCommandsDuring(`redis://${node.address}`, inner)));
        },
        async () => {
          expect(await adapter.sessionFor(`PHPSESSID=${valid}`).currentUser()).toMatchObject({ id: '1' });
          for (const id of ['../../etc/passwd', 'x'.repeat(300), 'a'.repeat(21), `${'a'.repeat(25)}*`, `${'a'.repeat(25)}\r\nFLUSHALL`]) {
            expect(await adapter.sessionFor(`PHPSESSID=${encodeURIComponent(id)}`).currentUser()).toBeUndefined();
          }
          expect(await adapter.sessionFor(`PHPSESSID=${valid}`).currentUser()).toMatchObject({ id: '1' });
        },
      );
      await watched();
      // The valid id's reads show the monitors were live; nothing else reached a node.
      expect(seen.filter((args) => args.includes(`${PREFIX}${valid}`)).length).toBeGreaterThan(0);
      expect(seen.filter((args) => args.some((arg) => /etc|xxxxx|FLUSHALL|\*|aaaaa/.test(arg)))).toEqual([]);
      await redis.del(`${PREFIX}${valid}`);
      await adapter.close();
    });

    it('a master killed: reads of its slots and ping fail as SessionUnavailableError (503), and every read once the cluster says CLUSTERDOWN', async () => {
      const php = await start('php');
      const adapter = adapterFor('php', [], { onConnectionError: () => undefined });
      await adapter.ready(5_000);
      await adapter.ping();
      // One signed-in session on each master.
      const byMaster = new Map<number, string>();
      while (byMaster.size < 3) {
        const { cookie } = await php.get('session.php?action=signin&id=61');
        byMaster.set((await cluster.ownerOf(await cluster.slotOf(keyOf(cookie)))).port, cookie!);
      }
      const [victim, victimCookie] = [...byMaster][0]!;
      await cluster.kill(victim);
      await expect(adapter.ping()).rejects.toBeInstanceOf(SessionUnavailableError);
      await expect(adapter.sessionFor(victimCookie).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
      // Once the others see the master fail, the whole cluster says CLUSTERDOWN: still 503, never a wrong answer.
      const down = async () =>
        ((await cluster.command([...byMaster.keys()][1]!, 'CLUSTER', 'INFO')) as string).includes('cluster_state:fail');
      while (!(await down())) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const cookie of byMaster.values()) {
        await expect(adapter.sessionFor(cookie).currentUser()).rejects.toBeInstanceOf(SessionUnavailableError);
      }
      await adapter.close();
    }, 60_000);
  },
);

describe.skipIf(missingPhp('redis', 'igbinary') || missing('redis-server and redis-cli', redisClusterAvailable()))(
  'a Redis Cluster with a password',
  () => {
    const password = 'pa ss&wörd';
    let cluster: RedisClusterProcess;
    let php: PhpServer | undefined;
    beforeAll(async () => {
      cluster = await redisClusterProcess({ masters: 3, password });
    }, 60_000);
    afterAll(async () => {
      await php?.stop();
      await cluster?.stop();
    });

    it('PHP signs in with auth=…, the service reads with the same save path; the password is in no description, error or report', async () => {
      const savePath = `${cluster.seeds}&auth=${encodeURIComponent(password)}`;
      php = await phpServer({ 'session.save_handler': 'rediscluster', 'session.save_path': savePath });
      const { cookie } = await php.get('session.php?action=signin&id=71');
      const said: string[] = [];
      const adapter = phpSessions({ saveHandler: 'rediscluster', savePath, onConnectionError: (error) => said.push(String(error)) });
      await adapter.ready(5_000);
      expect(await adapter.sessionFor(cookie).currentUser()).toMatchObject({ id: '71' });
      expect(adapter.describe()).not.toContain('pa ss');
      await adapter.close();

      const wrong = phpSessions({
        saveHandler: 'rediscluster',
        savePath: `${cluster.seeds}&auth[]=default&auth[]=wrong-s3cret`,
        onConnectionError: (error) => said.push(String(error)),
      });
      const refusals = await Promise.allSettled([wrong.ready(1_000), wrong.sessionFor(cookie).currentUser(), wrong.ping()]);
      for (const refusal of refusals) {
        expect(refusal.status).toBe('rejected');
        const reason = (refusal as PromiseRejectedResult).reason as Error;
        expect(reason).toBeInstanceOf(SessionUnavailableError);
        said.push(`${reason.message} ${String(reason.cause)}`);
      }
      await wrong.close();
      expect(said.join('\n')).not.toMatch(/pa ss|wrong-s3cret/);
    }, 30_000);
  },
);

describe.skipIf(missingPhp('redis', 'igbinary') || missing('redis-server and redis-cli', redisClusterAvailable()))(
  'a failover in a Redis Cluster with replicas',
  () => {
    let cluster: RedisClusterProcess;
    let php: PhpServer | undefined;
    beforeAll(async () => {
      cluster = await redisClusterProcess({ masters: 3, replicas: 1 });
    }, 60_000);
    afterAll(async () => {
      await php?.stop();
      await cluster?.stop();
    });

    it("a session's master killed while requests run: 503s only until its replica takes over, never a wrong answer; then reads and ping recover", async () => {
      const savePath = `${cluster.seeds}&timeout=2&failover=error`;
      php = await phpServer({ 'session.save_handler': 'rediscluster', 'session.save_path': savePath });
      const { cookie } = await php.get('session.php?action=signin&id=81');
      const key = `${PREFIX}${cookie!.split('=')[1]!}`;
      const slot = await cluster.slotOf(key);
      const victim = (await cluster.ownerOf(slot)).port;
      // The replica has the session before its master dies (replication is asynchronous: a failover loses
      // what was not replicated, and reading it as absent is then the truth). WAIT would not tell: it counts
      // only the asking connection's own writes, and this one made none. The offset the replica acknowledged
      // (once a second) must reach the master's.
      const replicated = async () => {
        const info = String(await cluster.command(victim, 'INFO', 'replication'));
        const master = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
        // A replica still in its first sync shows offset 0, as the master may too: online only.
        const replica = Number(/slave0:[^\r\n]*state=online,[^\r\n]*offset=(\d+)/.exec(info)?.[1] ?? -1);
        return replica >= master;
      };
      while (!(await replicated())) await new Promise((resolve) => setTimeout(resolve, 50));
      const adapter = phpSessions({ saveHandler: 'rediscluster', savePath, touch: 'expiry', onConnectionError: () => undefined });
      await adapter.ready(5_000);

      const outcomes = { signedIn: 0, unavailable: 0, other: [] as unknown[] };
      let promoted = false;
      let readsSincePromotion = 0;
      const reader = async () => {
        while (readsSincePromotion < 50) {
          try {
            const user = await adapter.sessionFor(cookie).currentUser();
            if (user?.id === '81') outcomes.signedIn += 1;
            else outcomes.other.push(user);
          } catch (error) {
            if (error instanceof SessionUnavailableError) outcomes.unavailable += 1;
            else outcomes.other.push(error);
          }
          if (promoted) readsSincePromotion += 1;
        }
      };
      const readers = Array.from({ length: 4 }, reader);
      let before = { ...outcomes };
      try {
        await cluster.kill(victim);
        // Until the others vote the replica in (cluster-node-timeout 2 s), then the cluster whole again.
        while ((await cluster.ownerOf(slot).catch(() => ({ port: victim }))).port === victim) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await cluster.healthy();
        before = { ...outcomes };
      } finally {
        // Whatever failed above, the readers end (a failed test must not leave them reading).
        promoted = true;
      }
      await Promise.all(readers);
      console.log(
        `[cluster failover] ${before.signedIn} reads signed in and ${before.unavailable} unavailable (503) until the replica took over; after: ${outcomes.signedIn - before.signedIn} signed in, ${outcomes.unavailable - before.unavailable} unavailable`,
      );
      // Errors as name and message (and cause): an Error's own fields would show as {} in the failure.
      const shown = (outcome: unknown): unknown =>
        outcome instanceof Error
          ? `${outcome.name}: ${outcome.message}${outcome.cause ? ` (${String(shown(outcome.cause))})` : ''}`
          : outcome;
      expect(outcomes.other.map(shown)).toEqual([]);
      // The last reads, on the promoted replica, all signed in.
      const last = await Promise.all(Array.from({ length: 20 }, () => adapter.sessionFor(cookie).currentUser()));
      expect(last.map((user) => user?.id)).toEqual(Array.from({ length: 20 }, () => '81'));
      // ping fetches the new map where a slot lost its master; a later ping passes.
      const deadline = performance.now() + 10_000;
      for (;;) {
        try {
          await adapter.ping();
          break;
        } catch (error) {
          if (performance.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await adapter.close();
    }, 90_000);
  },
);
