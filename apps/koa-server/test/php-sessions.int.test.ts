import { mkdir, mkdtemp, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  restartablePort,
  memcachedProcess,
  missing,
  missingPhp,
  pdoSessionTable,
  phpServer,
  redisClusterAvailable,
  redisClusterProcess,
  redisCommandsDuring,
  redisProcess,
  redisServerAvailable,
  type MemcachedProcess,
  type PdoSessionTable,
  type PhpServer,
  type RedisClusterProcess,
  type RedisProcess,
} from '@cotizaciones/adapters/testing';
import type { PhpSaveHandler } from '@cotizaciones/adapters/php-session/options';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, form, startService, type TestService } from './support/service.js';
import { until } from './support/until.js';

interface Shown {
  id: string;
  session: { LAST_ACTIVITY?: number } | null;
}

const IDLE_SECONDS = 60;
const PREFIX = 'phpwire_';
const DATABASE = 3;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const idOf = (cookie: string) => cookie.split('=')[1]!;

/** What differs between the PHP stores: where a session lives, and how PHP sees its expiry. */
interface Store {
  /** PHP's ini for `php -S` and the service's PHP_SESSION_* for the same store. */
  ini(): Record<string, string>;
  env(): Record<string, string>;
  /** The expiry as PHP sees it, in seconds from now (files: gc_maxlifetime minus the file's age; Redis: the TTL). */
  expiresIn(php: PhpServer, id: string): Promise<number>;
  /** Makes the session look about to expire, as if untouched for a long time. */
  age(id: string): Promise<void>;
  /** Every file or key the store holds, with what would show a write (mtime; value). */
  snapshot(): Promise<string>;
  /** Redis: the commands the store received while `during` ran. */
  commandsDuring?(during: () => Promise<void>): Promise<string[]>;
  /** A PDO table: takes the session table away; gives what puts it back. */
  outage?(): Promise<() => Promise<void>>;
}

const GC_MAXLIFETIME = 1440;

function sessionSuite(
  name: PhpSaveHandler,
  setUp: () => Promise<{ store: Store; down?: RedisProcess; cluster?: RedisClusterProcess }>,
  env: Record<string, string> = {},
  serializer = 'php',
) {
  describe(`SESSION_STORE=php with ${name} (${serializer}), beside a real PHP`, () => {
    let store: Store;
    let down: RedisProcess | undefined;
    let cluster: RedisClusterProcess | undefined;
    let php: PhpServer;
    let svc: TestService;

    beforeAll(async () => {
      ({ store, down, cluster } = await setUp());
      php = await phpServer({ ...store.ini(), 'session.gc_maxlifetime': String(GC_MAXLIFETIME) });
      svc = await startService({
        DEV_LOGIN: '',
        SESSION_STORE: 'php',
        PHP_SESSION_GC_MAXLIFETIME: String(GC_MAXLIFETIME),
        PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
        PHP_SESSION_IDLE_SECONDS: String(IDLE_SECONDS),
        ...store.env(),
        ...env,
      });
    });
    afterAll(async () => {
      await svc?.close();
      await php?.stop();
    });

    const signIn = async (id: string) => (await php.get<Shown>(`session.php?action=signin&id=${id}`)).cookie!;

    it('a user signed in through PHP is signed in here: {"ok":true}, and the audit row carries the PHP user\'s id', async () => {
      const cookie = await signIn('4101');
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '31', field: 'estado', value: 'ok' }), { cookie }), 200, '{"ok":true}');
      await expectAnswer(await svc.post(ITEM_PATH, form({ id: '32', delete: '' }), { cookie }), 200, '{"ok":true}');
      expect((await svc.rows()).slice(-2).map((row) => [row.event_key, row.user_id])).toEqual([
        ['cotizaciones.update', '4101'],
        ['cotizaciones.item_delete', '4101'],
      ]);
      // The service writes no cookie of its own: the session stays the PHP app's.
      const answer = await svc.post(FIELD_PATH, form({ id: '31', field: 'estado', value: 'ok' }), { cookie });
      expect(answer.headers.getSetCookie()).toEqual([]);
    });

    it('signing out in PHP signs out here', async () => {
      const cookie = await signIn('4102');
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '33', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
      await php.get('session.php?action=signout', cookie);
      const calls = svc.stub.received.length;
      await expectAnswer(
        await svc.post(FIELD_PATH, form({ id: '33', field: 'a', value: 'b' }), { cookie }),
        200,
        '{"ok":false,"msg":"No autenticado"}',
      );
      expect(svc.stub.received).toHaveLength(calls);
    });

    it('a session whose activity key is older than the idle limit is "No autenticado"', async () => {
      const cookie = await signIn('4103');
      await php.get(`session.php?action=activity&at=${nowSeconds() - IDLE_SECONDS - 5}`, cookie);
      await expectAnswer(
        await svc.post(FIELD_PATH, form({ id: '34', field: 'a', value: 'b' }), { cookie }),
        200,
        '{"ok":false,"msg":"No autenticado"}',
      );
      expect(svc.logs.lines).toContainEqual(expect.objectContaining({ problem: 'idle', msg: 'PHP session idle: answered as signed out' }));
      expect(svc.logs.text()).not.toContain(idOf(cookie));
    });

    it("after a request PHP sees the session's expiry moved", async () => {
      const cookie = await signIn('4104');
      await php.get(`session.php?action=activity&at=${nowSeconds() - 10}`, cookie);
      await store.age(idOf(cookie));
      expect(await store.expiresIn(php, idOf(cookie))).toBeLessThan(GC_MAXLIFETIME - 500);
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '35', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
      expect(await store.expiresIn(php, idOf(cookie))).toBeGreaterThan(GC_MAXLIFETIME - 10);
    });

    it('a hostile session id is "No autenticado" and touches no file and no key', async () => {
      const cookie = await signIn('4105');
      const before = await store.snapshot();
      const hostile = ['../../etc/passwd', '../victim', 'a'.repeat(300), 'abc$def%00ghijklmnopqrstuvwxyz', `${'b'.repeat(30)}/..`];
      const post = async () => {
        for (const id of hostile) {
          await expectAnswer(
            await svc.post(FIELD_PATH, form({ id: '36', field: 'a', value: 'b' }), { cookie: `PHPSESSID=${encodeURIComponent(id)}` }),
            200,
            '{"ok":false,"msg":"No autenticado"}',
          );
        }
      };
      if (store.commandsDuring) expect(await store.commandsDuring(post)).toEqual([]);
      else await post();
      expect(await store.snapshot()).toBe(before);
      // The same watch does see a real session's request (it would have seen a hostile one).
      const real = () =>
        svc
          .post(FIELD_PATH, form({ id: '36', field: 'a', value: 'b' }), { cookie })
          .then((response) => response.text())
          .then(() => undefined);
      if (store.commandsDuring) expect((await store.commandsDuring(real)).join('\n')).toContain(idOf(cookie));
      else {
        await store.age(idOf(cookie));
        await real();
        expect(await store.snapshot()).not.toBe(before);
      }
    });

    if (name === 'files') {
      it('the session directory gone → 503 with the contract headers and /readyz names it; back → normal', async () => {
        const cookie = await signIn('4109');
        const dir = store.env().PHP_SESSION_SAVE_PATH!;
        await rename(dir, `${dir}.away`);
        try {
          const calls = svc.stub.received.length;
          await expectAnswer(
            await svc.post(FIELD_PATH, form({ id: '40', field: 'a', value: 'b' }), { cookie }),
            503,
            '{"ok":false,"msg":"Servicio no disponible."}',
          );
          expect(svc.stub.received).toHaveLength(calls);
          // Once a background check has found it.
          expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 503, 10_000)).toBe(true);
          expect(await (await fetch(`${svc.url}/readyz`)).text()).toContain('PHP sessions');
        } finally {
          await rename(`${dir}.away`, dir);
        }
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '40', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 200, 10_000)).toBe(true);
        expect(svc.logs.text()).not.toContain(idOf(cookie));
      });
    }

    if (name === 'pdo') {
      it('the session table gone → 503 with the contract headers and /readyz names it; back → normal, with no restart', async () => {
        const cookie = await signIn('4111');
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '42', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        const restore = await store.outage!();
        try {
          const calls = svc.stub.received.length;
          await expectAnswer(
            await svc.post(FIELD_PATH, form({ id: '42', field: 'a', value: 'b' }), { cookie }),
            503,
            '{"ok":false,"msg":"Servicio no disponible."}',
          );
          expect(svc.stub.received).toHaveLength(calls);
          expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 503, 10_000)).toBe(true);
          expect(await (await fetch(`${svc.url}/readyz`)).text()).toContain('PHP sessions');
        } finally {
          await restore();
        }
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '42', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 200, 10_000)).toBe(true);
        expect(svc.logs.text()).not.toContain(idOf(cookie));
      });
    }

    if (env.PHP_SESSION_TOUCH === 'activity') {
      it('in activity mode PHP sees the activity key moved (and the expiry)', async () => {
        const cookie = await signIn('4107');
        const before = nowSeconds() - 30;
        await php.get(`session.php?action=activity&at=${before}`, cookie);
        await store.age(idOf(cookie));
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '38', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        const seen = await store.expiresIn(php, idOf(cookie));
        const { session } = (await php.get<Shown>('session.php?action=show', cookie)).body;
        expect(session?.LAST_ACTIVITY).toBeGreaterThan(before + 25);
        expect(seen).toBeGreaterThan(GC_MAXLIFETIME - 10);
      });
    }

    if (name === 'redis') {
      it('one request reads the session once, however often the route asks for the user', async () => {
        const cookie = await signIn('4108');
        // Activity a minute ahead: the activity write (WATCH, GET, MULTI) waits for a new second, and a request
        // that straddled one would add its GET to the count; here the only GET is the read.
        await php.get(`session.php?action=activity&at=${nowSeconds() + 60}`, cookie);
        const commands = await store.commandsDuring!(async () => {
          await expectAnswer(await svc.post(FIELD_PATH, form({ id: '39', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        });
        expect(commands.filter((line) => /^get /i.test(line) && line.includes(idOf(cookie)))).toHaveLength(1);
      });

      it('Redis stopped → 503 with the contract headers and /readyz names it; back → normal, with no restart', async () => {
        const cookie = await signIn('4106');
        await expectAnswer(await svc.post(FIELD_PATH, form({ id: '37', field: 'a', value: 'b' }), { cookie }), 200, '{"ok":true}');
        await down!.stop();
        const calls = svc.stub.received.length;
        await expectAnswer(
          await svc.post(FIELD_PATH, form({ id: '37', field: 'a', value: 'b' }), { cookie }),
          503,
          '{"ok":false,"msg":"Servicio no disponible."}',
        );
        expect(svc.stub.received).toHaveLength(calls);
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 503, 10_000)).toBe(true);
        expect(await (await fetch(`${svc.url}/readyz`)).text()).toContain('PHP sessions');
        await down!.start();
        // This Redis keeps nothing on disk: PHP signs in again once it is back, and the service follows without a restart.
        let answer = '';
        expect(
          await until(async () => {
            const again = await php.get<Shown>('session.php?action=signin&id=4106').catch(() => undefined);
            answer = again?.cookie
              ? await (await svc.post(FIELD_PATH, form({ id: '37', field: 'a', value: 'b' }), { cookie: again.cookie })).text()
              : '';
            return answer === '{"ok":true}';
          }, 10_000),
        ).toBe(true);
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 200, 10_000)).toBe(true);
      });
    }

    if (name === 'rediscluster') {
      it('a master killed → 503 with the contract headers and /readyz names it; back → normal, with no restart', async () => {
        // One signed-in session on each master: the dead one's, and another's.
        const byMaster = new Map<number, string>();
        while (byMaster.size < 3) {
          const cookie = await signIn('4110');
          byMaster.set((await cluster!.ownerOf(await cluster!.slotOf(`PHPREDIS_CLUSTER_SESSION:${idOf(cookie)}`))).port, cookie);
        }
        const [victim, cookie] = [...byMaster][0]!;
        await cluster!.kill(victim);
        const calls = svc.stub.received.length;
        await expectAnswer(
          await svc.post(FIELD_PATH, form({ id: '41', field: 'a', value: 'b' }), { cookie }),
          503,
          '{"ok":false,"msg":"Servicio no disponible."}',
        );
        expect(svc.stub.received).toHaveLength(calls);
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 503, 10_000)).toBe(true);
        expect(await (await fetch(`${svc.url}/readyz`)).text()).toContain('PHP sessions');
        await cluster!.restart(victim);
        await cluster!.healthy();
        // The node keeps nothing on disk: PHP signs in again (its session lands anywhere), and the service follows.
        let answer = '';
        expect(
          await until(async () => {
            const again = await php.get<Shown>('session.php?action=signin&id=4110').catch(() => undefined);
            answer = again?.cookie
              ? await (await svc.post(FIELD_PATH, form({ id: '41', field: 'a', value: 'b' }), { cookie: again.cookie })).text()
              : '';
            return answer === '{"ok":true}';
          }, 20_000),
        ).toBe(true);
        expect(await until(async () => (await fetch(`${svc.url}/readyz`)).status === 200, 20_000)).toBe(true);
        expect(svc.logs.text()).not.toContain(idOf(cookie));
        // Above the sum of its steps' own bounds (10 + 30 + 20 + 20 s): a slow step fails with its own message.
      }, 120_000);
    }
  });
}

describe.skipIf(missingPhp('igbinary'))('the service beside a real PHP app (php -S)', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'phpwire-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** The files store, with PHP's `session.serialize_handler` and the service's PHP_SESSION_SERIALIZE_HANDLER set alike. */
  const filesStore = (serializer: 'php' | 'igbinary') => async (): Promise<{ store: Store }> => {
    const dir = join(scratch, `sessions-${serializer}`);
    await mkdir(dir);
    // A file beside the save path that a `../victim` id would reach if ids were not checked.
    const victim = join(scratch, 'victim');
    await writeFile(victim, 'x');
    await utimes(victim, 1_000_000, 1_000_000);
    const filesIn = async (path: string): Promise<string[]> =>
      Promise.all((await readdir(path)).sort().map(async (name) => `${name} ${(await stat(join(path, name))).mtimeMs}`));
    return {
      store: {
        ini: () => ({ 'session.save_handler': 'files', 'session.save_path': dir, 'session.serialize_handler': serializer }),
        env: () => ({ PHP_SESSION_SAVE_HANDLER: 'files', PHP_SESSION_SAVE_PATH: dir, PHP_SESSION_SERIALIZE_HANDLER: serializer }),
        async expiresIn(php, id) {
          const { mtime } = (await php.get<{ mtime: number }>(`expiry.php?handler=files&dir=${encodeURIComponent(dir)}&id=${id}`)).body;
          return GC_MAXLIFETIME - (nowSeconds() - mtime);
        },
        async age(id) {
          const then = nowSeconds() - 1000;
          await utimes(join(dir, `sess_${id}`), then, then);
        },
        async snapshot() {
          return JSON.stringify([await filesIn(scratch), await filesIn(dir)]);
        },
      },
    };
  };
  sessionSuite('files', filesStore('php'));
  sessionSuite('files', filesStore('igbinary'), {}, 'igbinary');
});

describe.skipIf(missingPhp('redis') || missing('redis-server', redisServerAvailable()))(
  'the service beside a real PHP app (php -S, phpredis)',
  () => {
    let server: RedisProcess;
    let redis: Redis;
    beforeAll(async () => {
      server = redisProcess(await restartablePort());
      await server.start();
      redis = new Redis(`${server.url}/${DATABASE}`, { maxRetriesPerRequest: 1 });
      // The suite stops this Redis on purpose: its reconnect errors are expected.
      redis.on('error', () => undefined);
    });
    afterAll(async () => {
      redis?.disconnect();
      await server?.stop();
    });

    sessionSuite(
      'redis',
      () => {
        const savePath = () => `tcp://127.0.0.1:${new URL(server.url).port}?prefix=${PREFIX}&database=${DATABASE}`;
        return Promise.resolve({
          down: server,
          store: {
            ini: () => ({ 'session.save_handler': 'redis', 'session.save_path': savePath() }),
            env: () => ({ PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: savePath() }),
            async expiresIn(php, id) {
              return (
                await php.get<{ ttl: number }>(
                  `expiry.php?handler=redis&port=${new URL(server.url).port}&db=${DATABASE}&key=${PREFIX}${id}`,
                )
              ).body.ttl;
            },
            async age(id) {
              await redis.expire(`${PREFIX}${id}`, 100);
            },
            async snapshot() {
              const keys = (await redis.keys('*')).sort();
              return JSON.stringify(await Promise.all(keys.map(async (key) => [key, await redis.get(key)])));
            },
            async commandsDuring(during) {
              return (await redisCommandsDuring(`${server.url}/${DATABASE}`, during)).map((args) => args.join(' '));
            },
          },
        });
      },
      { PHP_SESSION_TOUCH: 'activity' },
    );
  },
);

describe.skipIf(missingPhp('memcached'))('the service beside a real PHP app (php -S, php-memcached)', () => {
  let server: MemcachedProcess;
  beforeAll(async () => {
    server = memcachedProcess(await restartablePort());
    await server.start();
  });
  afterAll(async () => {
    await server?.stop();
    server?.remove();
  });

  sessionSuite(
    'memcached',
    () => {
      const ttl = async (key: string) => Number(/ t(-?\d+)/.exec(await server.send(`mg ${key} t\r\n`))?.[1] ?? -2);
      return Promise.resolve({
        store: {
          ini: () => ({ 'session.save_handler': 'memcached', 'session.save_path': server.address }),
          env: () => ({ PHP_SESSION_SAVE_HANDLER: 'memcached', PHP_SESSION_SAVE_PATH: server.address }),
          expiresIn: (_php, id) => ttl(`memc.sess.key.${id}`),
          async age(id) {
            await server.send(`touch memc.sess.key.${id} 100\r\n`);
          },
          async snapshot() {
            // Every key with its CAS (moved by each write) and expiry (moved by a touch); not its last access.
            const dump = await server.send('lru_crawler metadump all\r\n', /END\r\n$/);
            return JSON.stringify(
              dump
                .split('\n')
                .filter((line) => line.startsWith('key='))
                .map((line) =>
                  line
                    .split(' ')
                    .filter((field) => /^(key|exp|cas)=/.test(field))
                    .join(' '),
                )
                .sort(),
            );
          },
        },
      });
    },
    { PHP_SESSION_TOUCH: 'activity' },
  );
});

const PDO_EXTENSIONS = ['pdo_pgsql', 'pdo_sqlite', 'igbinary'] as const;
/** A PDO session table (Symfony's schema), written by pdo-handler.php: on PostgreSQL with php, on SQLite with igbinary. */
describe.skipIf(missingPhp(...PDO_EXTENSIONS) || missing('PostgreSQL (TEST_POSTGRES_URL)', process.env.TEST_POSTGRES_URL))(
  'the service beside a real PHP app (php -S, a PDO session table)',
  () => {
    const tables: PdoSessionTable[] = [];
    let scratch: string;
    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'phpwire-pdo-'));
    });
    afterAll(async () => {
      await Promise.all(tables.map((table) => table.drop()));
      await rm(scratch, { recursive: true, force: true });
    });
    const pdoStore = (engine: 'postgres' | 'sqlite', serializer: 'php' | 'igbinary') => async (): Promise<{ store: Store }> => {
      const table = await pdoSessionTable(engine, engine === 'sqlite' ? join(scratch, 'sessions.db') : process.env.TEST_POSTGRES_URL!);
      tables.push(table);
      return {
        store: {
          ini: () => ({ ...table.phpIni, 'session.serialize_handler': serializer }),
          env: () => ({
            PHP_SESSION_SAVE_HANDLER: 'pdo',
            PHP_SESSION_SAVE_PATH: table.savePath,
            PHP_SESSION_PDO_TABLE: table.table,
            PHP_SESSION_SERIALIZE_HANDLER: serializer,
          }),
          // pdo-handler.php reads the expiry from these columns, as the service does.
          async expiresIn(_php, id) {
            const row = await table.row(id);
            return row ? (row.lifetime < row.time ? row.lifetime + row.time : row.lifetime) - nowSeconds() : -2;
          },
          // As if written 1000 s ago: the same span between time and expiry as PHP wrote.
          async age(id) {
            const row = (await table.row(id))!;
            await table.setTimes(id, row.lifetime - 1000, row.time - 1000);
          },
          async snapshot() {
            return JSON.stringify((await table.rows()).map((row) => ({ ...row, data: row.data.toString('base64') })));
          },
          async outage() {
            await table.execute(`ALTER TABLE ${table.table} RENAME TO ${table.table}_away`);
            return () => table.execute(`ALTER TABLE ${table.table}_away RENAME TO ${table.table}`);
          },
        },
      };
    };
    sessionSuite('pdo', pdoStore('postgres', 'php'), { PHP_SESSION_TOUCH: 'activity' });
    sessionSuite('pdo', pdoStore('sqlite', 'igbinary'), { PHP_SESSION_TOUCH: 'activity' }, 'igbinary');
  },
);

describe.skipIf(missingPhp('redis') || missing('redis-server and redis-cli', redisClusterAvailable()))(
  'the service beside a real PHP app (php -S, phpredis on a Redis Cluster)',
  () => {
    let cluster: RedisClusterProcess;
    let redis: Cluster;
    beforeAll(async () => {
      cluster = await redisClusterProcess({ masters: 3 });
      redis = new Cluster(cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })));
    }, 60_000);
    afterAll(async () => {
      redis?.disconnect();
      await cluster?.stop();
    });

    const PREFIX_CLUSTER = 'PHPREDIS_CLUSTER_SESSION:';
    const masters = () => redis.nodes('master');
    sessionSuite(
      'rediscluster',
      () => {
        const savePath = `${cluster.seeds}&timeout=2&read_timeout=2`;
        return Promise.resolve({
          cluster,
          store: {
            ini: () => ({ 'session.save_handler': 'rediscluster', 'session.save_path': savePath }),
            env: () => ({ PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: savePath }),
            // The TTL of the key on its master, as phpredis's read of it would find it.
            expiresIn: (_php, id) => redis.ttl(`${PREFIX_CLUSTER}${id}`),
            async age(id) {
              await redis.expire(`${PREFIX_CLUSTER}${id}`, 100);
            },
            async snapshot() {
              const keys = (await Promise.all(masters().map((node) => node.keys('*')))).flat().sort();
              return JSON.stringify(await Promise.all(keys.map(async (key) => [key, await redis.get(key)])));
            },
            // Every session-key command any node received (the client's own CLUSTER commands left out).
            async commandsDuring(during) {
              const seen: string[] = [];
              const watched = cluster.nodes.reduce<() => Promise<void>>(
                (inner, node) => async () => {
                  seen.push(...(await redisCommandsDuring(`redis://${node.address}`, inner)).map((args) => args.join(' ')));
                },
                during,
              );
              await watched();
              return seen.filter((line) => line.includes(PREFIX_CLUSTER));
            },
          },
        });
      },
      { PHP_SESSION_TOUCH: 'activity' },
    );
  },
);
