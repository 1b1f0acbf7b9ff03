// The strangler setup on one machine: the demo PHP app (php-fpm, or `php -S` when php-fpm is absent),
// the service with SESSION_STORE=php, and nginx with deploy/nginx-strangler.conf in front of both.
// Used by `npm run demo:php` and by the end-to-end browser test. Everything lives in one temp dir.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEMO_PHP = join(ROOT, 'demo', 'php');
const DEPLOY = join(ROOT, 'deploy');
const MAIN = join(ROOT, 'apps', 'koa-server', 'dist', 'main.js');
const FASTCGI_PARAMS = '/etc/nginx/fastcgi_params';

/** php-fpm's binary (Debian names it php-fpm8.2 in /usr/sbin), or undefined. */
export function phpFpmBinary() {
  for (const name of ['php-fpm', 'php-fpm8.4', 'php-fpm8.3', 'php-fpm8.2', 'php-fpm8.1']) {
    for (const path of [name, `/usr/sbin/${name}`]) {
      if (spawnSync(path, ['-v']).status === 0) return path;
    }
  }
  return undefined;
}

/**
 * The PHP session set-ups the demo can run (`DEMO_PHP_SESSION`), and the browser test runs each of
 * (strangler.e2e.test.ts). A new save handler or serializer (pdo, rediscluster, …) is one entry here:
 * `name` as `<save handler>/<serializer>`, or `<save handler>/<serializer>/<database>` for one of several
 * databases (the test checks the service's start-up line names each); `needs`, what must be installed
 * (`command(…)`, `php(extension)`: a Debian package and how to tell it is there; `variable(…)`: a database's
 * URL); `start({ dir, run, cleanup })`, which starts what the store needs with `run` (so the demo's stop
 * ends it; `freePort` and `untilListening` below help) in the demo's temp dir `dir`, gives `cleanup` what
 * removes anything it made elsewhere (run by the demo's stop), and resolves to
 * PHP's session ini (any ini: a handler class can come in by `auto_prepend_file`) and the service's
 * PHP_SESSION_* for the same store. The first entry is the demo's default.
 */
export const PHP_SESSION_SETUPS = [
  { name: 'files/php', needs: [], start: (context) => filesSetup(context, 'php') },
  { name: 'files/igbinary', needs: [php('igbinary')], start: (context) => filesSetup(context, 'igbinary') },
  {
    name: 'redis/php',
    needs: [command('redis-server', ['--version']), php('redis')],
    async start({ run, dir }) {
      const port = await freePort();
      run(
        'redis-server',
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        {},
      );
      await untilListening(port);
      const savePath = `tcp://127.0.0.1:${port}`;
      return {
        ini: { 'session.save_handler': 'redis', 'session.save_path': savePath },
        env: { PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: savePath, PHP_SESSION_TOUCH: 'activity' },
      };
    },
  },
  {
    name: 'rediscluster/php',
    needs: [command('redis-server', ['--version']), command('redis-cli', ['--version']), php('redis')],
    start: redisClusterSetup,
  },
  { name: 'memcached/php', needs: [command('memcached', ['-h']), php('memcached')], start: (context) => memcachedSetup(context, 'php') },
  {
    name: 'memcached/igbinary',
    needs: [command('memcached', ['-h']), php('memcached'), php('igbinary')],
    start: (context) => memcachedSetup(context, 'igbinary'),
  },
  { name: 'pdo/php', needs: [phpModule('pdo_sqlite', 'php-sqlite3')], start: (context) => pdoSetup(context, 'sqlite') },
  {
    name: 'pdo/php/postgres',
    needs: [phpModule('pdo_pgsql', 'php-pgsql'), variable('TEST_POSTGRES_URL', 'a PostgreSQL database')],
    start: (context) => pdoSetup(context, 'postgres', process.env.TEST_POSTGRES_URL),
  },
  {
    name: 'pdo/php/mysql',
    needs: [phpModule('pdo_mysql', 'php-mysql'), variable('TEST_MYSQL_URL', 'a MySQL or MariaDB database')],
    start: (context) => pdoSetup(context, 'mysql', process.env.TEST_MYSQL_URL),
  },
];

async function filesSetup({ dir }, serializer) {
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions, { mode: 0o1733 });
  return {
    ini: { 'session.save_handler': 'files', 'session.save_path': sessions, 'session.serialize_handler': serializer },
    env: { PHP_SESSION_SAVE_HANDLER: 'files', PHP_SESSION_SAVE_PATH: sessions, PHP_SESSION_SERIALIZE_HANDLER: serializer },
  };
}

/** Three masters on free ports (each with its own bus port), joined by `redis-cli --cluster create`; ready once every node says cluster_state:ok. */
async function redisClusterSetup({ run, dir }) {
  const nodes = [];
  for (let i = 0; i < 3; i += 1) {
    const [port, bus] = [await freePort(), await freePort()];
    const own = join(dir, `cluster-${port}`);
    mkdirSync(own);
    run(
      'redis-server',
      'redis-server',
      // Its own bus port: a port near the top of the range has no port + 10000.
      ['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'].concat([
        '--cluster-config-file',
        join(own, 'nodes.conf'),
        '--dir',
        own,
        '--save',
        '',
        '--appendonly',
        'no',
      ]),
      {},
    );
    nodes.push({ port });
  }
  for (const { port } of nodes) await untilListening(port);
  const addresses = nodes.map(({ port }) => `127.0.0.1:${port}`);
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  const ok = (port) =>
    spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout.includes('cluster_state:ok');
  await until(() => nodes.every(({ port }) => ok(port)), 30_000, 'the Redis Cluster did not reach cluster_state:ok');
  const savePath = `${addresses.map((address) => `seed[]=${address}`).join('&')}&timeout=2&read_timeout=2`;
  return {
    ini: { 'session.save_handler': 'rediscluster', 'session.save_path': savePath },
    env: { PHP_SESSION_SAVE_HANDLER: 'rediscluster', PHP_SESSION_SAVE_PATH: savePath, PHP_SESSION_TOUCH: 'activity' },
  };
}

async function memcachedSetup({ run }, serializer) {
  const port = await freePort();
  // In the foreground (no -d), so the demo's stop ends it; memcached refuses root without -u.
  run(
    'memcached',
    'memcached',
    ['-p', String(port), '-l', '127.0.0.1', '-U', '0', ...(process.getuid?.() === 0 ? ['-u', 'root'] : [])],
    {},
  );
  await untilListening(port);
  const savePath = `127.0.0.1:${port}`;
  return {
    ini: { 'session.save_handler': 'memcached', 'session.save_path': savePath, 'session.serialize_handler': serializer },
    env: {
      PHP_SESSION_SAVE_HANDLER: 'memcached',
      PHP_SESSION_SAVE_PATH: savePath,
      PHP_SESSION_SERIALIZE_HANDLER: serializer,
      PHP_SESSION_TOUCH: 'activity',
    },
  };
}

/** Symfony PdoSessionHandler's schema, as its documentation gives it for each database. */
const PDO_SCHEMA = {
  sqlite: (table) =>
    `CREATE TABLE ${table} (sess_id TEXT NOT NULL PRIMARY KEY, sess_data BLOB NOT NULL, sess_lifetime INTEGER NOT NULL, sess_time INTEGER NOT NULL)`,
  postgres: (table) =>
    `CREATE TABLE ${table} (sess_id VARCHAR(128) NOT NULL PRIMARY KEY, sess_data BYTEA NOT NULL, sess_lifetime INTEGER NOT NULL, sess_time INTEGER NOT NULL)`,
  mysql: (table) =>
    `CREATE TABLE ${table} (sess_id VARBINARY(128) NOT NULL PRIMARY KEY, sess_data BLOB NOT NULL, sess_lifetime INTEGER UNSIGNED NOT NULL, sess_time INTEGER UNSIGNED NOT NULL) COLLATE utf8mb4_bin, ENGINE = InnoDB`,
};

/**
 * A session table of Symfony's schema, written by demo/pdo-session-handler.php, which a file of the demo's own
 * prepends to every page with the database's DSN and the table's name. SQLite: a file in the demo's dir. PostgreSQL
 * or MySQL/MariaDB: a table of a random name in the database at `url` (the tests' TEST_POSTGRES_URL, TEST_MYSQL_URL),
 * dropped when the demo stops.
 */
async function pdoSetup({ dir, cleanup }, engine, url) {
  const connection = engine === 'sqlite' ? { dsn: `sqlite:${join(dir, 'sessions.db')}` } : pdoConnection(engine, url);
  const table = engine === 'sqlite' ? 'sessions' : `demo_sessions_${randomBytes(4).toString('hex')}`;
  pdoExec(connection, PDO_SCHEMA[engine](table), 'the session table was not made');
  if (engine !== 'sqlite') cleanup(() => pdoExec(connection, `DROP TABLE IF EXISTS ${table}`, 'the session table was not dropped'));
  const prepend = join(dir, 'pdo-session.php');
  const constants = {
    PDO_SESSION_DSN: connection.dsn,
    PDO_SESSION_USER: connection.user ?? '',
    PDO_SESSION_PASSWORD: connection.password ?? '',
    PDO_SESSION_TABLE: table,
  };
  // Single-quoted: PHP reads nothing in them but \\ and \'.
  const quoted = (text) => `'${text.replace(/[\\']/g, (character) => `\\${character}`)}'`;
  const defined = Object.entries(constants).map(([name, value]) => `const ${name} = ${quoted(value)};\n`);
  // Only PHP's user reads it: it may hold the database's password.
  writeFileSync(prepend, `<?php\n${defined.join('')}require ${quoted(join(ROOT, 'demo', 'pdo-session-handler.php'))};\n`, {
    mode: 0o600,
  });
  return {
    ini: { auto_prepend_file: prepend },
    env: {
      PHP_SESSION_SAVE_HANDLER: 'pdo',
      PHP_SESSION_SAVE_PATH: engine === 'sqlite' ? connection.dsn : url,
      PHP_SESSION_PDO_TABLE: table,
      PHP_SESSION_TOUCH: 'activity',
    },
  };
}

/** PDO's DSN and credentials for a postgres:// or mysql:// URL. */
function pdoConnection(engine, url) {
  const { hostname, port, pathname, username, password } = new URL(url);
  const driver = engine === 'postgres' ? 'pgsql' : 'mysql';
  return {
    dsn: `${driver}:host=${hostname}${port ? `;port=${port}` : ''};dbname=${decodeURIComponent(pathname.slice(1))}`,
    user: decodeURIComponent(username),
    password: decodeURIComponent(password),
  };
}

/** Runs one statement through PHP's PDO, as the PHP app's own set-up would (the password in its environment, not its arguments). */
function pdoExec({ dsn, user = '', password = '' }, statement, failure) {
  const ran = spawnSync(
    'php',
    [
      '-r',
      "(new PDO($argv[1], $argv[2] ?: null, getenv('PDO_PASSWORD') ?: null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]))->exec($argv[3]);",
      '--',
      dsn,
      user,
      statement,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH, PDO_PASSWORD: password } },
  );
  if (ran.status !== 0) throw new Error(`${failure}: ${ran.stdout}${ran.stderr}`);
}

/** A need: a program on the PATH, named by its Debian package. */
function command(name, args) {
  return { package: name, present: () => spawnSync(name, args).status === 0 };
}

/** A need: a PHP extension (php -m), named by its Debian package (Debian enables it for the CLI and php-fpm alike). */
function php(extension) {
  return {
    package: `php-${extension}`,
    present: () => spawnSync('php', ['-m']).stdout?.toString().split('\n').includes(extension) ?? false,
  };
}

/** A need: a database the set-up makes its table in, named by the variable that gives its URL. */
function variable(name, what) {
  return { package: `${name} (${what})`, present: () => Boolean(process.env[name]) };
}

/** A need: a PHP module (php -m) of another name than its Debian package. */
function phpModule(module, debianPackage) {
  return { ...php(module), package: debianPackage };
}

/** The set-up named `name`; throws naming the known ones. */
export function phpSessionSetup(name = PHP_SESSION_SETUPS[0].name) {
  const setup = PHP_SESSION_SETUPS.find((candidate) => candidate.name === name);
  if (!setup) throw new Error(`unknown PHP session set-up "${name}": one of ${PHP_SESSION_SETUPS.map((known) => known.name).join(', ')}`);
  return setup;
}

/** What the demo needs that may be missing (with the set-up `session`, default files/php), as a list of Debian packages. */
export function missingForDemo(session) {
  const missing = [];
  if (spawnSync('php', ['-v']).status !== 0) missing.push('php-cli');
  if (spawnSync('nginx', ['-v']).status !== 0) missing.push('nginx');
  if (!existsSync(MAIN)) missing.push('(a built service: npx turbo run build)');
  for (const need of phpSessionSetup(session).needs) if (!need.present()) missing.push(need.package);
  return missing;
}

/**
 * Starts the three processes, and what the PHP session set-up `session` needs (a name from
 * PHP_SESSION_SETUPS; default files/php); resolves once nginx answers. `port` 0 takes a free one.
 * @param {{ port?: number; session?: string; idleSeconds?: number; onOutput?: (name: string, text: string) => void }} [options]
 */
export async function startStrangler(options = {}) {
  const setup = phpSessionSetup(options.session);
  const dir = mkdtempSync(join(tmpdir(), 'strangler-demo-'));
  const children = [];
  const output = options.onOutput ?? (() => undefined);
  const run = (name, command, args, env) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => output(name, chunk.toString()));
    child.stderr.on('data', (chunk) => output(name, chunk.toString()));
    // A test run or a demo that dies must not leave them running.
    const kill = () => child.kill('SIGKILL');
    process.once('exit', kill);
    child.once('exit', () => process.off('exit', kill));
    children.push(child);
    return child;
  };
  // What the set-up made outside `dir` (a table in a database), removed once its processes are gone.
  const cleanups = [];
  const stop = async () => {
    await Promise.all(
      children.reverse().map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      }),
    );
    try {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  try {
    const [nginxPort, servicePort] = [options.port || (await freePort()), await freePort()];
    const url = `http://127.0.0.1:${nginxPort}`;
    // 0. Where PHP keeps its sessions.
    const store = await setup.start({ dir, run, cleanup: (step) => cleanups.push(step) });
    const ini = { ...store.ini, 'session.gc_probability': '0', 'session.use_strict_mode': '1' };

    // 1. The PHP app.
    const fpm = phpFpmBinary();
    let phpLocation;
    if (fpm) {
      const socket = join(dir, 'php-fpm.sock');
      const root = process.getuid?.() === 0;
      writeFileSync(
        join(dir, 'php-fpm.conf'),
        [
          '[global]',
          `pid = ${join(dir, 'php-fpm.pid')}`,
          `error_log = ${join(dir, 'php-fpm.log')}`,
          'daemonize = no',
          '[demo]',
          // php-fpm runs its workers as the user that starts it (root only with -R, as `user = root`).
          ...(root ? ['user = root', 'group = root'] : []),
          `listen = ${socket}`,
          'pm = static',
          'pm.max_children = 2',
          'catch_workers_output = yes',
          // Quoted: `;`, `&` and `=` in a save path are read otherwise.
          ...Object.entries(ini).map(([key, value]) => `php_admin_value[${key}] = "${value}"`),
          '',
        ].join('\n'),
      );
      const child = run('php-fpm', fpm, ['-F', '-y', join(dir, 'php-fpm.conf'), ...(root ? ['-R'] : [])], {});
      await until(() => existsSync(socket), 10_000, 'php-fpm did not open its socket', child);
      phpLocation = { fastcgi: `unix:${socket}` };
    } else {
      const phpPort = await freePort();
      run(
        'php',
        'php',
        [...Object.entries(ini).flatMap(([key, value]) => ['-d', `${key}="${value}"`]), '-S', `127.0.0.1:${phpPort}`, '-t', DEMO_PHP],
        {},
      );
      await untilListening(phpPort);
      phpLocation = { http: `127.0.0.1:${phpPort}` };
    }

    // 2. The service, reading the PHP app's sessions.
    const service = run('service', process.execPath, [MAIN], {
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      SESSION_STORE: 'php',
      ...store.env,
      PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
      PHP_SESSION_IDLE_SECONDS: String(options.idleSeconds ?? 1800),
      // nginx connects from 127.0.0.1.
      TRUST_PROXY: '127.0.0.1',
      ALLOWED_ORIGINS: url,
      ACTIVITY_LOG_URL: `sqlite:${join(dir, 'activity.db')}`,
      ACTIVITY_LOG_DEAD_LETTER: join(dir, 'activity-dead-letter.jsonl'),
    });
    let serviceOutput = '';
    service.stdout.on('data', (chunk) => (serviceOutput += chunk.toString()));
    await until(() => serviceOutput.includes('"listening"'), 15_000, 'the service did not start', service);
    // What the service says it reads (its start-up line), e.g. "PHP sessions: memcached at 127.0.0.1:…, serializer igbinary, …".
    const sessionsRead = JSON.parse(serviceOutput.split('\n').find((line) => line.includes('"listening"'))).sessions;

    // 3. nginx with the repository's recipe; only addresses and paths are changed.
    writeNginxConfig(dir, { nginxPort, servicePort, phpLocation });
    run('nginx', 'nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx-error.log')], {});
    await untilListening(nginxPort);

    return { url, dir, session: setup.name, sessionsRead, activityDb: join(dir, 'activity.db'), php: fpm ? 'php-fpm' : 'php -S', stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** deploy/nginx-strangler.conf and its two includes, with this machine's addresses in place of the deployment's. */
function writeNginxConfig(dir, { nginxPort, servicePort, phpLocation }) {
  const read = (name) => readFileSync(join(DEPLOY, name), 'utf8');
  const upstream = read('cotizaciones-upstream.conf').replace(
    /^(\s*)server \S+:\d+ ([^\n]*)\n(\s*server \S+:\d+ [^\n]*\n)*/m,
    `$1server 127.0.0.1:${servicePort} $2\n`,
  );
  let strangler = read('nginx-strangler.conf')
    .replace(/listen 80;/, `listen 127.0.0.1:${nginxPort};`)
    .replace(/root \/var\/www\/app;/, `root ${DEMO_PHP};`);
  if (phpLocation.fastcgi) strangler = strangler.replace(/server unix:\/run\/php\/[^;]+;/, `server ${phpLocation.fastcgi};`);
  // Without php-fpm the PHP app is `php -S`: the `.php` location proxies to it instead (the demo only).
  else
    strangler = strangler
      .replace(/location ~ \\\.php\$ \{[^}]*\}/, `location ~ \\.php$ {\n        proxy_pass http://${phpLocation.http};\n    }`)
      .replace(/upstream php_fpm \{[^}]*\}\n/, '');
  for (const [expected, text] of [
    ['127.0.0.1:' + servicePort, upstream],
    [`listen 127.0.0.1:${nginxPort};`, strangler],
  ]) {
    if (!text.includes(expected)) throw new Error(`deploy/ changed shape: could not place ${expected}`);
  }
  writeFileSync(join(dir, 'cotizaciones-upstream.conf'), upstream);
  writeFileSync(join(dir, 'cotizaciones-proxy.conf'), read('cotizaciones-proxy.conf'));
  writeFileSync(join(dir, 'nginx-strangler.conf'), strangler);
  writeFileSync(join(dir, 'fastcgi_params'), existsSync(FASTCGI_PARAMS) ? readFileSync(FASTCGI_PARAMS) : '');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')};
events {}
http {
    access_log off;
    client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
    types { text/html html; text/javascript js; }
    include nginx-strangler.conf;
}
`,
  );
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

async function until(check, timeoutMs, message, child) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline || (child && child.exitCode !== null)) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function untilListening(port) {
  const answers = () =>
    new Promise((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  const deadline = Date.now() + 10_000;
  while (!(await answers())) {
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
