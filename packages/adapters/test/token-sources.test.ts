import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenUnavailableError } from '@cotizaciones/core';
import { sessionTokenSource, staticTokenSource } from '../src/index.js';
import { clientCredentialsTokenSource } from '../src/oauth.js';
import {
  startStubTokenEndpoint,
  startStubUpstream,
  testTokenSource,
  type StubTokenEndpoint,
  type StubUpstreamServer,
} from '../src/testing/index.js';

const user = { id: '7', token: 'user-own-token' };

testTokenSource('static', () =>
  Promise.resolve({ source: staticTokenSource('configured'), user, unavailable: { source: staticTokenSource(undefined), user } }),
);

testTokenSource('session', () =>
  Promise.resolve({ source: sessionTokenSource('token'), user, unavailable: { source: sessionTokenSource('token'), user: { id: '7' } } }),
);

testTokenSource(
  'OAuth2 client credentials',
  async () => {
    const endpoint = await startStubTokenEndpoint();
    const source = (tokenUrl: string) => clientCredentialsTokenSource({ tokenUrl, clientId: 'c', clientSecret: 's', timeoutMs: 1000 });
    return {
      source: source(endpoint.url),
      user,
      unavailable: { source: source('http://127.0.0.1:1/token'), user },
      close: () => endpoint.close(),
    };
  },
  { refresh: true },
);

describe('OAuth2 client credentials', () => {
  let endpoint: StubTokenEndpoint;
  let clock: number;
  const source = (extra: { scope?: string } = {}) =>
    clientCredentialsTokenSource({
      tokenUrl: endpoint.url,
      clientId: 'app id',
      clientSecret: 'SECRET:pw',
      timeoutMs: 500,
      now: () => clock,
      ...extra,
    });
  beforeEach(async () => {
    endpoint = await startStubTokenEndpoint();
    clock = 1_000_000;
  });
  afterEach(() => endpoint.close());

  it('asks with grant_type, scope and HTTP Basic client authentication', async () => {
    await source({ scope: 'cotizaciones:write' }).token(user);
    expect(endpoint.requests).toEqual([
      {
        authorization: `Basic ${Buffer.from('app%20id:SECRET%3Apw').toString('base64')}`,
        form: { grant_type: 'client_credentials', scope: 'cotizaciones:write' },
      },
    ]);
  });

  it('caches the token until shortly before it expires', async () => {
    endpoint.configure({ expiresIn: 120 });
    const tokens = source();
    expect(await tokens.token(user)).toBe('token-1');
    clock += 89_000;
    expect(await tokens.token(user)).toBe('token-1');
    clock += 2_000; // 91 s: within 30 s of expiry
    expect(await tokens.token(user)).toBe('token-2');
    expect(endpoint.requests).toHaveLength(2);
  });

  it('assumes a lifetime when expires_in is missing', async () => {
    endpoint.configure({ expiresIn: undefined });
    const tokens = source();
    await tokens.token(user);
    clock += 200_000;
    await tokens.token(user);
    expect(endpoint.requests).toHaveLength(1);
    clock += 100_000;
    await tokens.token(user);
    expect(endpoint.requests).toHaveLength(2);
  });

  it('sends a single token request however many requests wait', async () => {
    endpoint.configure({ expiresIn: 3600, delayMs: 50 });
    const tokens = source();
    const all = await Promise.all(Array.from({ length: 100 }, () => tokens.token(user)));
    expect(new Set(all)).toEqual(new Set(['token-1']));
    expect(endpoint.requests).toHaveLength(1);
  });

  it('refreshes a rejected token once, even for many requests rejected together', async () => {
    const tokens = source();
    const rejected = await tokens.token(user);
    const fresh = await Promise.all(Array.from({ length: 20 }, () => tokens.refresh!(user, rejected)));
    expect(new Set(fresh)).toEqual(new Set(['token-2']));
    expect(endpoint.requests).toHaveLength(2);
    // A request still holding the first token gets the current one without a new request.
    expect(await tokens.refresh!(user, rejected)).toBe('token-2');
    expect(endpoint.requests).toHaveLength(2);
  });

  it.each([
    ['answers 503', { fail: true }],
    ['is slower than the time limit', { delayMs: 1_000 }],
  ])('fails with TokenUnavailableError when the endpoint %s, without the secret in the error', async (_, settings) => {
    endpoint.configure(settings);
    const error: unknown = await source()
      .token(user)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenUnavailableError);
    expect(String(error)).not.toContain('SECRET');
  });

  it('recovers once the endpoint is back', async () => {
    endpoint.configure({ fail: true });
    const tokens = source();
    await expect(tokens.token(user)).rejects.toBeInstanceOf(TokenUnavailableError);
    endpoint.configure({ expiresIn: 3600 });
    await expect(tokens.token(user)).resolves.toBe('token-1');
  });
});

describe('OAuth2 client credentials: one time limit for the whole token request', () => {
  const timeoutMs = 300;
  let server: StubUpstreamServer;
  beforeEach(async () => {
    server = await startStubUpstream();
  });
  afterEach(() => server.close());

  async function expectUnavailableInTime(tokenUrl: string): Promise<void> {
    const tokens = clientCredentialsTokenSource({ tokenUrl, clientId: 'c', clientSecret: 'SECRET-pw', timeoutMs });
    const started = Date.now();
    const error: unknown = await tokens.token(user).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toBeInstanceOf(TokenUnavailableError);
    expect(String(error)).not.toContain('SECRET');
    expect(took).toBeGreaterThanOrEqual(timeoutMs - 5);
    // Only bounds a hang (the answers never end): a busy machine's late timers must not fail it.
    expect(took).toBeLessThan(timeoutMs + 5_000);
  }

  it('gives up on a token answer whose body drips and never ends', async () => {
    server.answer({ dripMs: 50 });
    await expectUnavailableInTime(`${server.url}/oauth/token`);
  });

  it('gives up on a token endpoint whose connection is never established', async () => {
    await expectUnavailableInTime(`${server.stalledConnectUrl}/oauth/token`);
  });
});
