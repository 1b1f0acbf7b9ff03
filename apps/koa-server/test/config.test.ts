import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const KEYS = 'a-very-long-session-key-0001';

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
      redisUrl: 'redis://cache:6379',
      devLogin: true,
      logLevel: 'warn',
    });
  });

  it('turns the dev sign-in off by default when a real upstream is configured', () => {
    expect(loadConfig({ UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't' }).devLogin).toBe(false);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['a port out of range', { PORT: '70000' }, /^PORT: /],
    ['a port that is not a number', { PORT: 'http' }, /^PORT: /],
    ['a base path without its slash', { BASE_PATH: 'app' }, /^BASE_PATH: /],
    ['a base path ending in a slash', { BASE_PATH: '/app/' }, /^BASE_PATH: /],
    ['an upstream that is not an http URL', { UPSTREAM_BASE_URL: 'ftp://x', UPSTREAM_TOKEN: 't' }, /^UPSTREAM_BASE_URL: /],
    ['an upstream without a token', { UPSTREAM_BASE_URL: 'http://u' }, /^UPSTREAM_TOKEN: /],
    ['two token sources', { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', UPSTREAM_TOKEN_URL: 'http://id/token' }, /^UPSTREAM_TOKEN_URL: set only one/],
    ['a token URL without a client id', { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_URL: 'http://id/token', UPSTREAM_CLIENT_SECRET: 's' }, /^UPSTREAM_CLIENT_ID: /],
    ['a token URL without a secret', { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_URL: 'http://id/token', UPSTREAM_CLIENT_ID: 'c' }, /^UPSTREAM_CLIENT_SECRET: /],
    ['a session token key that is not a name', { UPSTREAM_TOKEN_SESSION_KEY: 'a.b' }, /^UPSTREAM_TOKEN_SESSION_KEY: /],
    ['an origin with a path', { ALLOWED_ORIGINS: 'https://app.example.com/x' }, /^ALLOWED_ORIGINS: /],
    ['an origin that is not a URL', { ALLOWED_ORIGINS: 'app.example.com' }, /^ALLOWED_ORIGINS: /],
    ['an unsafe table name', { ACTIVITY_LOG_TABLE: 'log; drop' }, /^ACTIVITY_LOG_TABLE: /],
    ['a zero queue bound', { ACTIVITY_LOG_QUEUE_MAX: '0' }, /^ACTIVITY_LOG_QUEUE_MAX: /],
    ['a zero timeout', { UPSTREAM_TIMEOUT_MS: '0' }, /^UPSTREAM_TIMEOUT_MS: /],
    ['an unknown activity log', { ACTIVITY_LOG_URL: 'mongodb://x' }, /^ACTIVITY_LOG_URL: /],
    ['short session keys', { SESSION_KEYS: 'short' }, /^SESSION_KEYS: /],
    ['an unknown session store', { SESSION_STORE: 'memcached' }, /^SESSION_STORE: /],
    ['redis without its URL', { SESSION_STORE: 'redis' }, /^REDIS_URL: /],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
    ['an unknown upstream client', { UPSTREAM_CLIENT: 'axios' }, /^UPSTREAM_CLIENT: /],
    ['a DEV_LOGIN that is not a flag', { DEV_LOGIN: 'yes' }, /^DEV_LOGIN: /],
    ['production on the demo upstream', { NODE_ENV: 'production', SESSION_KEYS: KEYS }, /^UPSTREAM_BASE_URL: /],
    ['production without session keys', { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't' }, /^SESSION_KEYS: /],
    ['production with the dev sign-in', { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', SESSION_KEYS: KEYS, DEV_LOGIN: '1' }, /^DEV_LOGIN: /],
    ['production without a trusted proxy', { NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', SESSION_KEYS: KEYS }, /^TRUST_PROXY: /],
  ])('refuses %s, naming the variable', (_, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each<[Record<string, string>, unknown]>([
    [{}, { kind: 'static', token: 'demo-token' }],
    [{ UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 'abc' }, { kind: 'static', token: 'abc' }],
    [
      { UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_URL: 'https://id/token', UPSTREAM_CLIENT_ID: 'c', UPSTREAM_CLIENT_SECRET: 's', UPSTREAM_SCOPE: 'x y' },
      { kind: 'client-credentials', tokenUrl: 'https://id/token', clientId: 'c', clientSecret: 's', scope: 'x y' },
    ],
    [{ UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN_SESSION_KEY: 'token' }, { kind: 'session', key: 'token' }],
  ])('chooses the token source from %j', (env, tokenSource) => {
    expect(loadConfig(env).tokenSource).toEqual(tokenSource);
  });

  it('reads the allowed origins', () => {
    expect(loadConfig({}).allowedOrigins).toBeUndefined();
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example, http://localhost:8080' }).allowedOrigins).toEqual(['https://a.example', 'http://localhost:8080']);
  });

  it('reads the activity log, Redis and shutdown settings', () => {
    expect(
      loadConfig({ ACTIVITY_LOG_TABLE: 'auditoria', ACTIVITY_LOG_QUEUE_MAX: '50', REDIS_KEY_PREFIX: 'app1:', SHUTDOWN_TIMEOUT_MS: '3000' }),
    ).toMatchObject({ activityLogTable: 'auditoria', activityLogQueueMax: 50, redisKeyPrefix: 'app1:', shutdownTimeoutMs: 3000 });
  });

  it('accepts a production configuration', () => {
    const config = loadConfig({ NODE_ENV: 'production', UPSTREAM_BASE_URL: 'http://u', UPSTREAM_TOKEN: 't', SESSION_KEYS: KEYS, TRUST_PROXY: '1' });
    expect(config).toMatchObject({ production: true, devLogin: false });
  });
});
