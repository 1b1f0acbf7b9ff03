import got from 'got';
import { TokenUnavailableError, type TokenSource } from '@cotizaciones/core';

export interface ClientCredentialsOptions {
  /** The OAuth2 token endpoint. */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string | undefined;
  readonly timeoutMs: number;
  /** A token is renewed this long before it expires. */
  readonly renewBeforeMs?: number;
  /** Lifetime assumed when the endpoint gives no `expires_in`. */
  readonly defaultLifetimeMs?: number;
  readonly now?: () => number;
}

interface Cached {
  readonly token: string;
  readonly renewAt: number;
}

/**
 * OAuth2 client credentials (RFC 6749 §4.4, client authenticated with HTTP
 * Basic): one token for every request, cached until shortly before it expires.
 * However many requests wait, at most one token request is in flight.
 */
export function clientCredentialsTokenSource(options: ClientCredentialsOptions): TokenSource {
  const now = options.now ?? Date.now;
  const renewBeforeMs = options.renewBeforeMs ?? 30_000;
  const defaultLifetimeMs = options.defaultLifetimeMs ?? 300_000;
  const basic = Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64');
  let cached: Cached | undefined;
  let inFlight: Promise<string> | undefined;

  async function request(): Promise<string> {
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (options.scope) form.scope = options.scope;
    let body: unknown;
    try {
      const response = await got.post(options.tokenUrl, {
        form,
        headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
        // One total deadline: connect, send, headers and the whole body.
        timeout: { request: options.timeoutMs },
        retry: { limit: 0 },
        throwHttpErrors: false,
        responseType: 'text',
      });
      if (response.statusCode !== 200) throw new Error(`token endpoint answered ${response.statusCode}`);
      body = JSON.parse(response.body) as unknown;
    } catch (error) {
      // Keep only the message: got's errors carry the request, and so the client secret.
      throw new TokenUnavailableError(`no token from ${options.tokenUrl}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { access_token: token, expires_in: expiresIn } = (body ?? {}) as { access_token?: unknown; expires_in?: unknown };
    if (typeof token !== 'string' || token === '') throw new TokenUnavailableError(`no access_token from ${options.tokenUrl}`);
    const lifetimeMs = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn * 1000 : defaultLifetimeMs;
    cached = { token, renewAt: now() + Math.max(0, lifetimeMs - renewBeforeMs) };
    return token;
  }

  function fresh(): Promise<string> {
    inFlight ??= request().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  return {
    token() {
      if (cached && now() < cached.renewAt) return Promise.resolve(cached.token);
      return fresh();
    },
    refresh(_user, rejected) {
      // Another request may already have replaced the rejected token.
      if (cached && cached.token !== rejected) return Promise.resolve(cached.token);
      cached = undefined;
      return fresh();
    },
  };
}
