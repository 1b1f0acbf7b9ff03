import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const KEYS = 'a-very-long-session-key-0001';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('loadConfig', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      production: false,
      port: 3000,
      host: '127.0.0.1',
      basePath: '',
      upstreamBaseUrl: undefined,
      upstreamTimeoutMs: 10_000,
      upstreamClient: 'got',
      activityLogUrl: 'sqlite:./data/activity.db',
      sessionStore: 'cookie',
      devLogin: true,
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
      maxParams: 1000,
      sessionKeysGenerated: true,
      shutdownDrainMs: 0,
      shutdownTimeoutMs: 10_000,
      activityLogDeadLetter: './data/activity-dead-letter.jsonl',
      activityLogDeadLetterMaxBytes: 64 * 1024 * 1024,
      activityLogSpool: './data/activity-spool',
    });
    expect(config.sessionKeys).toHaveLength(1);
    expect(loadConfig({}).sessionKeys).not.toEqual(config.sessionKeys);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      BASE_PATH: '/app',
      UPSTREAM_BASE_URL: 'https://api.example.com/v1',
      UPSTREAM_TOKEN: 't',
      UPSTREAM_TIMEOUT_MS: '2500',
      UPSTREAM_CLIENT: 'undici',
      UPSTREAM_MAX_RESPONSE_BYTES: '2048',
      ACTIVITY_LOG_URL: 'postgres://u@db/x',
      SESSION_KEYS: `${KEYS}, second-key-0123456789`,
      SESSION_STORE: 'redis',
      REDIS_URL: 'redis://cache:6379',
      DEV_LOGIN: '1',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      basePath: '/app',
      upstreamBaseUrl: 'https://api.example.com/v1',
      tokenSource: { kind: 'static', token: 't' },
      upstreamTimeoutMs: 2500,
      upstreamClient: 'undici',
      upstreamMaxResponseBytes: 2048,
      activityLogUrl: 'postgres://u@db/x',
      sessionKeys: [KEYS, 'second-key-0123456789'],
      sessionKeysGenerated: false,
      sessionStore: 'redis',
      records: { backend: { name: 'redis' }, variables: { REDIS_URL: 'redis://cache:6379' } },
      devLogin: true,
      logLevel: 'warn',
    });
  });

  it('turns the dev sign-in off by default when a real upstream is configured', () => {
    expect(loadConfig({ UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't' }).devLogin).toBe(false);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['a port out of range', { PORT: '70000' }, /^PORT /],
    ['a port that is not a number', { PORT: 'http' }, /^PORT /],
    ['a base path without its slash', { BASE_PATH: 'app' }, /^BASE_PATH /],
    ['a base path ending in a slash', { BASE_PATH: '/app/' }, /^BASE_PATH /],
    ['an upstream that is not an http URL', { UPSTREAM_BASE_URL: 'ftp://x', UPSTREAM_TOKEN: 't' }, /^UPSTREAM_BASE_URL /],
    ['an upstream without a token', { UPSTREAM_BASE_URL: 'http://u' }, /^UPSTREAM_TOKEN /],
    [
      'two token sources',
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', UPSTREAM_TOKEN_URL: 'http://id/token' },
      /^UPSTREAM_TOKEN_URL must not be set with UPSTREAM_TOKEN: set only one/,
    ],
    [
      'a token URL without a client id',
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_URL: 'http://id/token', UPSTREAM_CLIENT_SECRET: 's' },
      /^UPSTREAM_CLIENT_ID /,
    ],
    [
      'a token URL without a secret',
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_URL: 'http://id/token', UPSTREAM_CLIENT_ID: 'c' },
      /^UPSTREAM_CLIENT_SECRET /,
    ],
    ['a session token key that is not a name', { UPSTREAM_TOKEN_SESSION_KEY: 'a.b' }, /^UPSTREAM_TOKEN_SESSION_KEY /],
    ['an origin with a path', { ALLOWED_ORIGINS: 'https://app.example.com/x' }, /^ALLOWED_ORIGINS /],
    ['an origin that is not a URL', { ALLOWED_ORIGINS: 'app.example.com' }, /^ALLOWED_ORIGINS /],
    ['an unsafe table name', { ACTIVITY_LOG_TABLE: 'log; drop' }, /^ACTIVITY_LOG_TABLE /],
    ['a zero queue bound', { ACTIVITY_LOG_QUEUE_MAX: '0' }, /^ACTIVITY_LOG_QUEUE_MAX /],
    ['a zero timeout', { UPSTREAM_TIMEOUT_MS: '0' }, /^UPSTREAM_TIMEOUT_MS /],
    ['an unknown activity log', { ACTIVITY_LOG_URL: 'mongodb://x' }, /^ACTIVITY_LOG_URL /],
    ['short session keys', { SESSION_KEYS: 'short' }, /^SESSION_KEYS /],
    ['an unknown session store', { SESSION_STORE: 'memcached' }, /^SESSION_STORE /],
    ['redis without its URL', { SESSION_STORE: 'redis' }, /^REDIS_URL /],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL /],
    ['an unknown upstream client', { UPSTREAM_CLIENT: 'axios' }, /^UPSTREAM_CLIENT /],
    ['a DEV_LOGIN that is not a flag', { DEV_LOGIN: 'yes' }, /^DEV_LOGIN /],
    ['production on the demo upstream', { NODE_ENV: 'production', SESSION_KEYS: KEYS }, /^UPSTREAM_BASE_URL /],
    ['production without session keys', { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't' }, /^SESSION_KEYS /],
    [
      'production with the dev sign-in',
      { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', SESSION_KEYS: KEYS, DEV_LOGIN: '1' },
      /^DEV_LOGIN /,
    ],
    [
      'production without a trusted proxy',
      {
        NODE_ENV: 'production',
        UPSTREAM_BASE_URL: 'http://u',
        UPSTREAM_TOKEN: 't',
        SESSION_KEYS: KEYS,
        ALLOWED_ORIGINS: 'https://a.example',
      },
      /^TRUST_PROXY is required in production/,
    ],
    [
      'production without allowed origins',
      { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', SESSION_KEYS: KEYS, TRUST_PROXY: '10.0.0.5' },
      /^ALLOWED_ORIGINS is required in production/,
    ],
    ['TRUST_PROXY=true (neither an address nor a count)', { TRUST_PROXY: 'true' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    ['TRUST_PROXY naming a host', { TRUST_PROXY: 'loopback,nginx' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    ['TRUST_PROXY with an address out of range', { TRUST_PROXY: '10.0.0.256' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    ['TRUST_PROXY with a prefix too long', { TRUST_PROXY: '10.0.0.0/33' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    ['TRUST_PROXY with no entry', { TRUST_PROXY: ' , ' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    ['TRUST_PROXY counting more than 10 proxies', { TRUST_PROXY: '11' }, /^TRUST_PROXY must be the reverse proxies' addresses/],
    [
      'credentials in the upstream URL',
      { UPSTREAM_BASE_URL: 'http://user:pw@api.example.com', UPSTREAM_TOKEN: 't' },
      /^UPSTREAM_BASE_URL must not contain a user name or password/,
    ],
    [
      'a user name in the upstream URL',
      { UPSTREAM_BASE_URL: 'https://user@api.example.com', UPSTREAM_TOKEN: 't' },
      /^UPSTREAM_BASE_URL must not contain a user name or password/,
    ],
    [
      'credentials in the token URL',
      {
        UPSTREAM_BASE_URL: 'http://u',
        UPSTREAM_TOKEN_URL: 'https://c:s@id.example.com/token',
        UPSTREAM_CLIENT_ID: 'c',
        UPSTREAM_CLIENT_SECRET: 's',
      },
      /^UPSTREAM_TOKEN_URL must not contain a user name or password/,
    ],
    [
      "the user's token in a cookie session",
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_SESSION_KEY: 'token' },
      /^UPSTREAM_TOKEN_SESSION_KEY needs server-side sessions \(SESSION_STORE=redis or php\)/,
    ],
  ])('refuses %s, naming the variable', (_, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each<[Record<string, string>, unknown]>([
    [{}, { kind: 'static', token: 'demo-token' }],
    [
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 'abc' },
      { kind: 'static', token: 'abc' },
    ],
    [
      {
        UPSTREAM_BASE_URL: 'http://u',
        UPSTREAM_TOKEN_URL: 'https://id/token',
        UPSTREAM_CLIENT_ID: 'c',
        UPSTREAM_CLIENT_SECRET: 's',
        UPSTREAM_SCOPE: 'x y',
      },
      { kind: 'client-credentials', tokenUrl: 'https://id/token', clientId: 'c', clientSecret: 's', scope: 'x y' },
    ],
    [
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_SESSION_KEY: 'token', SESSION_STORE: 'redis', REDIS_URL: 'redis://r' },
      { kind: 'session', key: 'token' },
    ],
  ])('chooses the token source from %j', (env, tokenSource) => {
    expect(loadConfig(env).tokenSource).toEqual(tokenSource);
  });

  it("reads TRUST_PROXY as the proxies' addresses, ranges and names, or outside production as a count", () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::1 ,192.168.1.0/255.255.255.0' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::1',
      '192.168.1.0/255.255.255.0',
    ]);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  it.each(['1', '0'])('refuses the bare count TRUST_PROXY=%s in production with one line saying what to write instead', (count) => {
    const production = {
      NODE_ENV: 'production',
      UPSTREAM_BASE_URL: 'http://u',
      UPSTREAM_TOKEN: 't',
      SESSION_KEYS: KEYS,
      ALLOWED_ORIGINS: 'https://a.example',
    };
    expect(configError({ ...production, TRUST_PROXY: count }).problems).toEqual([
      'TRUST_PROXY must name the proxies in production, not count them (a count trusts whoever connects): write their addresses or CIDR ranges instead, e.g. TRUST_PROXY=10.0.0.5 or TRUST_PROXY=loopback',
    ]);
    expect(loadConfig({ ...production, TRUST_PROXY: '10.0.0.5,10.0.1.0/24' }).trustProxy).toEqual(['10.0.0.5', '10.0.1.0/24']);
  });

  it('reports every bad variable at once, one line each, saying what is expected', () => {
    const error = configError({
      PORT: 'http',
      UPSTREAM_BASE_URL: 'ftp://files.example.com',
      UPSTREAM_TOKEN: 't',
      LOG_LEVEL: 'loud',
      SESSION_STORE: 'redis',
    });
    expect(error.problems).toEqual([
      'UPSTREAM_BASE_URL must be an http:// or https:// URL (got "ftp://files.example.com")',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'REDIS_URL is required when SESSION_STORE=redis',
      'PORT must be an integer from 0 to 65535 (0: any free port) (got "http")',
    ]);
    expect(error.message).toBe(error.problems.join('\n'));
  });

  it('says what a number must be rather than what the parser received', () => {
    expect(configError({ UPSTREAM_TIMEOUT_MS: '0', PORT: '70000' }).problems).toEqual([
      'UPSTREAM_TIMEOUT_MS must be an integer from 1 to 600000 (got "0")',
      'PORT must be an integer from 0 to 65535 (0: any free port) (got "70000")',
    ]);
  });

  it('reports the rules of a production configuration together', () => {
    expect(configError({ NODE_ENV: 'production', DEV_LOGIN: '1' }).problems).toEqual([
      'UPSTREAM_BASE_URL is required in production (the built-in demo upstream is for development)',
      'SESSION_KEYS is required in production',
      'DEV_LOGIN must be 0 or unset in production (the dev sign-in routes)',
      "TRUST_PROXY is required in production: the TLS proxy's addresses or CIDR ranges, e.g. TRUST_PROXY=10.0.0.5 (Secure cookies need its X-Forwarded-Proto)",
      'ALLOWED_ORIGINS is required in production: the origins whose pages may POST, e.g. https://app.example.com',
    ]);
  });

  it("allows the user's token in server-side sessions only", () => {
    const base = { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_SESSION_KEY: 'token' };
    expect(() => loadConfig({ ...base, SESSION_STORE: 'cookie' })).toThrow(/^UPSTREAM_TOKEN_SESSION_KEY needs server-side sessions/);
    expect(loadConfig({ ...base, SESSION_STORE: 'redis', REDIS_URL: 'redis://r' }).tokenSource).toEqual({ kind: 'session', key: 'token' });
    expect(loadConfig({ ...base, SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: '/var/lib/php/sessions' }).tokenSource).toEqual({
      kind: 'session',
      key: 'token',
    });
  });

  it('SESSION_STORE=php: the PHP_SESSION_* values, no keys asked for or generated, no dev sign-in', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      UPSTREAM_BASE_URL: 'http://u',
      UPSTREAM_TOKEN: 't',
      TRUST_PROXY: '10.0.0.5',
      ALLOWED_ORIGINS: 'https://a.example',
      SESSION_STORE: 'php',
      PHP_SESSION_SAVE_HANDLER: 'redis',
      PHP_SESSION_SAVE_PATH: 'tcp://cache:6379?prefix=app_&auth=pw',
      PHP_SESSION_SERIALIZE_HANDLER: 'php_serialize',
      PHP_SESSION_ACTIVITY_KEY: 'LAST_ACTIVITY',
      PHP_SESSION_IDLE_SECONDS: '1800',
      PHP_SESSION_TOUCH: 'activity',
    });
    expect(config).toMatchObject({ sessionStore: 'php', sessionKeysGenerated: false, devLogin: false });
    expect(config.phpSession).toEqual({
      saveHandler: 'redis',
      savePath: 'tcp://cache:6379?prefix=app_&auth=pw',
      serializeHandler: 'php_serialize',
      name: 'PHPSESSID',
      gcMaxLifetimeSeconds: 1440,
      userKey: 'user',
      activityKey: 'LAST_ACTIVITY',
      idleSeconds: 1800,
      touch: 'activity',
      maxBytes: 1048576,
      lockWaiters: 128,
    });
    // Demo mode (no upstream) keeps dev sign-in off too: sign-in belongs to the PHP app.
    expect(loadConfig({ SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: '/tmp' }).devLogin).toBe(false);
    expect(loadConfig({}).phpSession).toBeUndefined();
  });

  it('SESSION_STORE=php: every bad PHP_SESSION_* variable reported with the others', () => {
    expect(
      configError({ PORT: 'x', SESSION_STORE: 'php', PHP_SESSION_NAME: 'a b', PHP_SESSION_GC_MAXLIFETIME: '-1', DEV_LOGIN: '1' }).problems,
    ).toEqual([
      'PHP_SESSION_SAVE_PATH required: copy session.save_path from php.ini (a directory for files; tcp://host:port?… for redis; seed[]=host:port&… for rediscluster; host:port,… for memcached; the database as mysql://…, postgres://… or sqlite:<file> for pdo)',
      'PHP_SESSION_NAME "a b" is not a session cookie name PHP accepts',
      'PHP_SESSION_GC_MAXLIFETIME "-1" is not a positive whole number of seconds',
      'PORT must be an integer from 0 to 65535 (0: any free port) (got "x")',
      'DEV_LOGIN must be 0 or unset with SESSION_STORE=php (sign-in belongs to the PHP app)',
    ]);
  });

  it('never prints a secret, nor the user name or password of a URL', () => {
    const secrets = {
      SESSION_KEYS: 'SECRET-short',
      METRICS_TOKEN: 'SECRET',
      UPSTREAM_BASE_URL: 'http://alice:SECRET-pw@api.example.com/v1',
      UPSTREAM_TOKEN: 't',
      ACTIVITY_LOG_URL: 'mongodb://admin:SECRET-pw@db.example.com:27017/log?authSource=SECRET',
      SESSION_STORE: 'redis',
      REDIS_URL: 'http://:SECRET-pw@cache.example.com:6379',
      UPSTREAM_CLIENT_SECRET: 'SECRET',
    };
    const error = configError(secrets);
    expect(error.problems).toEqual([
      'UPSTREAM_BASE_URL must not contain a user name or password (user:password@): give the token in UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL (got "http://api.example.com/v1")',
      'ACTIVITY_LOG_URL must be sqlite:<file>, postgres://…, mysql://… or memory: (got "mongodb://db.example.com:27017/log")',
      'REDIS_URL must be a redis:// or rediss:// URL (got "http://cache.example.com:6379")',
      'SESSION_KEYS must be comma-separated keys of 16 characters or more',
      'METRICS_TOKEN must be a token of 16 characters or more',
    ]);
    expect(error.message).not.toMatch(/SECRET|alice/);
  });

  it('cuts a long value short', () => {
    const [line] = configError({ LOG_LEVEL: 'x'.repeat(500) }).problems;
    expect(line).toBe(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${'x'.repeat(40)}"…)`);
  });

  it('creates no folder but the default ./data: a file in a missing folder is a configuration error', () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'config-')), 'missing');
    expect(
      configError({
        ACTIVITY_LOG_URL: `sqlite:${missing}/a.db`,
        ACTIVITY_LOG_DEAD_LETTER: `${missing}/dead.jsonl`,
        ACTIVITY_LOG_SPOOL: `${missing}/spool`,
      }).problems,
    ).toEqual([
      `ACTIVITY_LOG_URL names a file in a folder that does not exist (${missing}): create the folder first (only ./data is created)`,
      `ACTIVITY_LOG_DEAD_LETTER names a file in a folder that does not exist (${missing}): create the folder first (only ./data is created)`,
      `ACTIVITY_LOG_SPOOL names a file in a folder that does not exist (${missing}): create the folder first (only ./data is created)`,
    ]);
    expect(existsSync(missing)).toBe(false);
    expect(loadConfig({}).dataFolder).toBe('./data');
    const elsewhere = {
      ACTIVITY_LOG_URL: 'memory:',
      ACTIVITY_LOG_DEAD_LETTER: `${dirname(missing)}/dead.jsonl`,
      ACTIVITY_LOG_SPOOL: `${dirname(missing)}/spool`,
    };
    expect(loadConfig(elsewhere).dataFolder).toBeUndefined();
    expect(loadConfig({ ...elsewhere, ACTIVITY_LOG_SPOOL: undefined }).dataFolder).toBe('./data');
  });

  it('reads the allowed origins', () => {
    expect(loadConfig({}).allowedOrigins).toBeUndefined();
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example, http://localhost:8080' }).allowedOrigins).toEqual([
      'https://a.example',
      'http://localhost:8080',
    ]);
  });

  it('reads the activity log, Redis and shutdown settings', () => {
    expect(
      loadConfig({
        ACTIVITY_LOG_TABLE: 'auditoria',
        ACTIVITY_LOG_QUEUE_MAX: '50',
        SESSION_STORE: 'redis',
        REDIS_URL: 'redis://r',
        REDIS_KEY_PREFIX: 'app1:',
        SHUTDOWN_TIMEOUT_MS: '3000',
      }),
    ).toMatchObject({
      activityLogTable: 'auditoria',
      activityLogQueueMax: 50,
      records: { variables: { REDIS_KEY_PREFIX: 'app1:' } },
      shutdownTimeoutMs: 3000,
    });
  });

  it('accepts a production configuration', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      UPSTREAM_BASE_URL: 'http://u',
      UPSTREAM_TOKEN: 't',
      SESSION_KEYS: KEYS,
      TRUST_PROXY: 'loopback',
      ALLOWED_ORIGINS: 'https://a.example',
    });
    // The drain is long enough in production for a balancer to notice /readyz.
    expect(config).toMatchObject({ production: true, devLogin: false, trustProxy: ['loopback'], shutdownDrainMs: 5_000 });
  });
});
