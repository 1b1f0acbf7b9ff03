import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  freePort,
  memcachedProcess,
  missing,
  pdoSessionTable,
  redisClusterAvailable,
  redisClusterProcess,
} from '@cotizaciones/adapters/testing';
import { MAIN, startProcess } from './support/process.js';
import { until } from './support/until.js';

/** Runs the built server with `env` only, to its exit: the code and everything it printed. */
async function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

// Everything production needs besides the sessions, so the only lines are the PHP mode's.
const PRODUCTION = {
  NODE_ENV: 'production',
  UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
  UPSTREAM_TOKEN: 'SECRET-upstream-token',
  TRUST_PROXY: '10.0.0.5',
  ALLOWED_ORIGINS: 'https://app.example.com',
  ACTIVITY_LOG_URL: 'memory:',
};

describe('SESSION_STORE=php start-up refusals, in the server process', () => {
  it('DEV_LOGIN, an unsupported serializer and several Redis hosts: one line each, exit 1, no password printed; SESSION_KEYS not asked for', async () => {
    const { code, stdout, stderr } = await run({
      ...PRODUCTION,
      SESSION_STORE: 'php',
      DEV_LOGIN: '1',
      PHP_SESSION_SAVE_HANDLER: 'redis',
      PHP_SESSION_SAVE_PATH: 'tcp://10.0.0.1:6379?auth=SECRET-redis-pw, tcp://10.0.0.2:6379?auth=SECRET-redis-pw',
      PHP_SESSION_SERIALIZE_HANDLER: 'msgpack',
    });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([
      'configuration error: PHP_SESSION_SAVE_PATH several Redis servers (phpredis spreads sessions across them by weight) are not supported: give one',
      'configuration error: PHP_SESSION_SERIALIZE_HANDLER "msgpack" is not supported: expected php, php_serialize, php_binary or igbinary',
      'configuration error: DEV_LOGIN must be 0 or unset with SESSION_STORE=php (sign-in belongs to the PHP app)',
    ]);
    expect(stdout + stderr).not.toContain('SECRET');
  });

  it('a missing save path, and files with touch=activity', async () => {
    const { code, stderr } = await run({
      SESSION_STORE: 'php',
      PHP_SESSION_TOUCH: 'activity',
      PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
      PHP_SESSION_IDLE_SECONDS: '1800',
    });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([
      'configuration error: PHP_SESSION_SAVE_PATH required: copy session.save_path from php.ini (a directory for files; tcp://host:port?… for redis; seed[]=host:port&… for rediscluster; host:port,… for memcached; the database as mysql://…, postgres://… or sqlite:<file> for pdo)',
      expect.stringMatching(
        /^configuration error: PHP_SESSION_TOUCH=activity is not supported with the files handler: PHP rewrites a session file under its own flock/,
      ),
    ]);
  });

  it.each([
    [
      'memcache',
      '127.0.0.1:11211',
      'PHP_SESSION_SAVE_HANDLER "memcache" is not supported: expected files (PHP), redis (phpredis), rediscluster (phpredis), memcached (php-memcached) or pdo (a session table)',
    ],
    [
      'memcached',
      'tcp://127.0.0.1:11211',
      'PHP_SESSION_SAVE_PATH "tcp://127.0.0.1:11211" is not a memcached server: expected host:port[:weight]',
    ],
    ['redis', 'tcp://127.0.0.1:6379?auth=SECRET-redis-pw&compression=lzf', 'PHP_SESSION_SAVE_PATH compression is not supported'],
    ['redis', 'tls://127.0.0.1:6379?auth=SECRET-redis-pw', 'PHP_SESSION_SAVE_PATH the scheme "tls:" is not supported: tcp:// or unix://'],
    ['files', 'var/lib/php/sessions', 'PHP_SESSION_SAVE_PATH the directory must be an absolute path'],
    ['files', '2;abc;/var/lib/php/sessions', 'PHP_SESSION_SAVE_PATH "abc" is not an octal file mode'],
  ])('refuses save handler %s with save path %s', async (handler, savePath, line) => {
    const { code, stdout, stderr } = await run({
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: handler,
      PHP_SESSION_SAVE_PATH: savePath,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^configuration error: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stdout + stderr).not.toContain('SECRET');
  });
});

describe('SESSION_STORE=php start-up, in the server process', () => {
  it("refuses to start with files when PHP's lock cannot be taken (koffi's binary does not load), saying why", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'phpwire-nolock-'));
    try {
      // Loaded before the server: makes koffi fail to load, as on a platform without its prebuilt binary.
      const preload = join(dir, 'no-koffi.cjs');
      await writeFile(
        preload,
        "const M = require('node:module'); const load = M._load; M._load = function (name, ...rest) { if (name === 'koffi') throw new Error('no koffi here'); return load.call(this, name, ...rest); };",
      );
      const { code, stderr } = await run({
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_PATH: dir,
        ACTIVITY_LOG_URL: 'memory:',
        NODE_OPTIONS: `--require ${preload}`,
      });
      expect(code).toBe(1);
      expect(stderr).toMatch(
        /^start-up failed: PHP_SESSION_SAVE_HANDLER=files needs flock\(2\), PHP's own lock, which the service takes through koffi: koffi's prebuilt binary did not load/m,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the PHP sessions in the start-up line, mounts no dev routes, and signs nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'phpwire-start-'));
    try {
      const { child, url, output } = await startProcess({ SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: dir, ACTIVITY_LOG_URL: 'memory:' });
      const listening = output()
        .split('\n')
        .find((line) => line.includes('"listening"'))!;
      expect(JSON.parse(listening)).toMatchObject({
        sessions: `PHP sessions: files in ${dir}, serializer php, cookie PHPSESSID, user key "user", no idle check, touch expiry`,
        devLogin: 'off',
      });
      expect(output()).not.toContain('SESSION_KEYS');
      expect((await fetch(`${url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: '1' }) })).status).toBe(404);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      child.kill('SIGTERM');
      await once(child, 'exit');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("starts with the PHP sessions' Redis down: /readyz says so, the endpoints answer 503, no password printed", async () => {
    const port = await freePort();
    const { child, url, output } = await startProcess({
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'redis',
      PHP_SESSION_SAVE_PATH: `tcp://127.0.0.1:${port}?auth=SECRET-redis-pw&prefix=p_`,
      ACTIVITY_LOG_URL: 'memory:',
    });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('PHP sessions');
    const answer = await fetch(`${url}/cotizaciones/api/update_cotizacion_api.php`, {
      method: 'POST',
      headers: { cookie: 'PHPSESSID=abcdefghijklmnopqrstuvwxyz' },
      body: new URLSearchParams({ id: '1', field: 'a', value: 'b' }),
    });
    expect(answer.status).toBe(503);
    expect(await answer.text()).toBe('{"ok":false,"msg":"Servicio no disponible."}');
    child.kill('SIGTERM');
    expect(await until(() => child.exitCode !== null, 10_000)).toBe(true);
    expect(output()).toMatch(/PHP sessions: redis at 127\.0\.0\.1:\d+/);
    expect(output()).not.toContain('SECRET');
  });

  it("starts with the PHP sessions' memcached down: /readyz and the endpoints answer 503; once it is up, ready, and an unknown id is signed out", async () => {
    const memcached = memcachedProcess(await freePort());
    const { child, url, output } = await startProcess({
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'memcached',
      PHP_SESSION_SAVE_PATH: `${memcached.address}:1`,
      ACTIVITY_LOG_URL: 'memory:',
    });
    const post = () =>
      fetch(`${url}/cotizaciones/api/update_cotizacion_api.php`, {
        method: 'POST',
        headers: { cookie: 'PHPSESSID=abcdefghijklmnopqrstuvwxyz' },
        body: new URLSearchParams({ id: '1', field: 'a', value: 'b' }),
      });
    try {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toContain('PHP sessions');
      const answer = await post();
      expect(answer.status).toBe(503);
      expect(await answer.text()).toBe('{"ok":false,"msg":"Servicio no disponible."}');
      await memcached.start();
      expect(await until(async () => (await fetch(`${url}/readyz`)).status === 200, 10_000)).toBe(true);
      expect(await (await post()).json()).toEqual({ ok: false, msg: 'No autenticado' });
      expect(output()).toContain(String.raw`PHP sessions: memcached at ${memcached.address}, keys \"memc.sess.key.<id>\"`);
    } finally {
      child.kill('SIGTERM');
      await until(() => child.exitCode !== null, 10_000);
      await memcached.stop();
      memcached.remove();
    }
  });

  it.skipIf(missing('PostgreSQL (TEST_POSTGRES_URL)', process.env.TEST_POSTGRES_URL))(
    'starts with the PHP session table missing: the start-up log names it, /readyz and the endpoints answer 503; once it is there, ready; its password never printed',
    async () => {
      const table = await pdoSessionTable('postgres', process.env.TEST_POSTGRES_URL!);
      await table.execute(`ALTER TABLE ${table.table} RENAME TO ${table.table}_away`);
      // Trust authentication here: the password is sent and ignored, and must never be printed.
      const withPassword = new URL(table.savePath);
      withPassword.password = 'SECRET-pg-pw';
      const { child, url, output } = await startProcess({
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_HANDLER: 'pdo',
        PHP_SESSION_SAVE_PATH: withPassword.href,
        PHP_SESSION_PDO_TABLE: table.table,
        ACTIVITY_LOG_URL: 'memory:',
      });
      const post = () =>
        fetch(`${url}/cotizaciones/api/update_cotizacion_api.php`, {
          method: 'POST',
          headers: { cookie: 'PHPSESSID=abcdefghijklmnopqrstuvwxyz' },
          body: new URLSearchParams({ id: '1', field: 'a', value: 'b' }),
        });
      try {
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(503);
        expect(JSON.stringify(await ready.json())).toContain('PHP sessions');
        expect(output()).toContain(`the PHP session table ${table.table} (sess_id, sess_data, sess_lifetime, sess_time) in postgres`);
        const answer = await post();
        expect(answer.status).toBe(503);
        expect(await answer.text()).toBe('{"ok":false,"msg":"Servicio no disponible."}');
        await table.execute(`ALTER TABLE ${table.table}_away RENAME TO ${table.table}`);
        expect(await until(async () => (await fetch(`${url}/readyz`)).status === 200, 10_000)).toBe(true);
        expect(await (await post()).json()).toEqual({ ok: false, msg: 'No autenticado' });
        expect(output()).toContain(
          `PHP sessions: pdo session table ${table.table} (sess_id, sess_data, sess_lifetime, sess_time) in postgres`,
        );
      } finally {
        child.kill('SIGTERM');
        await until(() => child.exitCode !== null, 10_000);
        await table.execute(`DROP TABLE IF EXISTS ${table.table}_away`);
        await table.drop();
      }
      expect(output()).not.toContain('SECRET');
    },
  );

  it.skipIf(missing('redis-server and redis-cli', redisClusterAvailable()))(
    "starts with the PHP sessions' Redis Cluster down: /readyz and the endpoints answer 503; once it is up, ready, and an unknown id is signed out; its password never printed",
    async () => {
      const cluster = await redisClusterProcess({ masters: 3, password: 'SECRET-cluster-pass' });
      // Every node down before the service starts; they come back with their cluster config (their slots).
      for (const node of cluster.nodes) await cluster.kill(node.port);
      const { child, url, output } = await startProcess({
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_HANDLER: 'rediscluster',
        PHP_SESSION_SAVE_PATH: `${cluster.seeds}&auth=SECRET-cluster-pass`,
        ACTIVITY_LOG_URL: 'memory:',
      });
      const post = () =>
        fetch(`${url}/cotizaciones/api/update_cotizacion_api.php`, {
          method: 'POST',
          headers: { cookie: 'PHPSESSID=abcdefghijklmnopqrstuvwxyz' },
          body: new URLSearchParams({ id: '1', field: 'a', value: 'b' }),
        });
      try {
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(503);
        expect(JSON.stringify(await ready.json())).toContain('PHP sessions');
        const answer = await post();
        expect(answer.status).toBe(503);
        expect(await answer.text()).toBe('{"ok":false,"msg":"Servicio no disponible."}');
        for (const node of cluster.nodes) await cluster.restart(node.port);
        await cluster.healthy();
        expect(await until(async () => (await fetch(`${url}/readyz`)).status === 200, 20_000)).toBe(true);
        expect(await (await post()).json()).toEqual({ ok: false, msg: 'No autenticado' });
        expect(output()).toContain(String.raw`PHP sessions: rediscluster seeded by ${cluster.nodes[0]!.address}`);
        expect(output()).not.toContain('SECRET');
      } finally {
        child.kill('SIGTERM');
        await until(() => child.exitCode !== null, 10_000);
        await cluster.stop();
      }
    },
    60_000,
  );
});
