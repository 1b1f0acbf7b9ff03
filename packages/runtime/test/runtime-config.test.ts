import { describe, expect, it } from 'vitest';
import { ConfigError, loadRuntimeConfig, readSessionConfig, type ConfigProblems } from '../src/index.js';

function problems(env: Record<string, string>): readonly string[] {
  try {
    loadRuntimeConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('loadRuntimeConfig: the adapters a channel opens, from the environment', () => {
  it('reads no HTTP variable: a channel without a listener is not asked for one', () => {
    expect(loadRuntimeConfig({ PORT: 'not a port', SESSION_KEYS: 'short' })).toMatchObject({ upstreamBaseUrl: undefined, tokenSource: { kind: 'static', token: 'demo-token' } });
  });

  it('keeps the rules that go with the adapters: one token source, production guards, no secret printed', () => {
    expect(
      problems({ NODE_ENV: 'production', UPSTREAM_TOKEN: 'SECRET-1', UPSTREAM_TOKEN_SESSION_KEY: 'token', UPSTREAM_CLIENT_SECRET: 'x', REDIS_URL: 'http://:SECRET@r' }),
    ).toEqual([
      'UPSTREAM_BASE_URL is required in production (the built-in demo upstream is for development)',
      'UPSTREAM_TOKEN_SESSION_KEY must not be set with UPSTREAM_TOKEN: set only one token source',
    ]);
  });

  it('reads no session variable: sessions are the web channel\'s (readSessionConfig), refused there without a secret', () => {
    expect(() => loadRuntimeConfig({ SESSION_STORE: 'php', REDIS_URL: 'http://:SECRET@r' })).not.toThrow();
    const found: ConfigProblems = new Map();
    readSessionConfig({ SESSION_STORE: 'redis', REDIS_URL: 'http://:SECRET@r', UPSTREAM_TOKEN_SESSION_KEY: 'token' }, found);
    expect([...found.values()]).toEqual(['REDIS_URL must be a redis:// or rediss:// URL (got "http://r")']);
    found.clear();
    readSessionConfig({ UPSTREAM_TOKEN_SESSION_KEY: 'token' }, found);
    expect([...found.values()]).toEqual([expect.stringMatching(/^UPSTREAM_TOKEN_SESSION_KEY needs server-side sessions/)]);
  });
});
