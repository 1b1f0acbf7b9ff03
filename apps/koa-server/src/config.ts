import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  flag,
  integer,
  readRuntimeConfig,
  readSessionConfig,
  readVariables,
  reporter,
  secret,
  throwIfProblems,
  type ConfigProblems,
  type Environment,
  type RuntimeConfig,
  type SessionConfig,
} from '@cotizaciones/runtime';
import type { ServerLimits } from './http-server.js';
import { compileTrust, type TrustProxy } from './http/trusted-proxies.js';

export { ConfigError } from '@cotizaciones/runtime';

/** Every entry an address, a CIDR range or a name proxy-addr knows. */
function compiles(proxies: readonly string[]): boolean {
  try {
    return compileTrust(proxies) !== undefined;
  } catch {
    return false;
  }
}

/** The HTTP channel's own variables; the adapters' are the runtime's. */
const HttpEnv = z.object({
  PORT: integer(0, 65535, 3000).describe('an integer from 0 to 65535 (0: any free port)'),
  HOST: z.string().min(1).default('127.0.0.1').describe('a host name or address to listen on'),
  BASE_PATH: z
    .string()
    .default('')
    .refine((path) => path === '' || /^\/[^?#]*[^/?#]$/.test(path), 'must be empty or start with "/" and not end with "/"'),
  SESSION_KEYS: secret(
    z
      .string()
      .transform((keys) =>
        keys
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      )
      .refine((keys) => keys.length > 0 && keys.every((key) => key.length >= 16), 'must be comma-separated keys of 16 characters or more')
      .optional(),
  ),
  DEV_LOGIN: flag.optional().describe('1 or 0'),
  BODY_LIMIT_BYTES: integer(1, 64 * 1024 * 1024, 1024 * 1024),
  MAX_PARAMS: integer(1, 1_000_000, 1000),
  // The reverse proxies whose headers are taken; a bare number counts hops instead (outside production).
  TRUST_PROXY: z
    .string()
    .transform((value): TrustProxy =>
      /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : value
            .split(',')
            .map((entry) => entry.trim())
            .filter((entry) => entry !== ''),
    )
    .refine(
      (setting) => (typeof setting === 'number' ? setting <= 10 : compiles(setting)),
      "must be the reverse proxies' addresses, CIDR ranges or loopback/linklocal/uniquelocal, comma-separated (e.g. 10.0.0.5,10.0.1.0/24), or outside production a count from 0 to 10",
    )
    .optional(),
  ALLOWED_ORIGINS: z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ''),
    )
    .refine(
      (origins) => origins.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin.replace(/\/$/, '')),
      'must be comma-separated origins such as https://app.example.com',
    )
    .optional(),
  SHUTDOWN_TIMEOUT_MS: integer(1, 600_000, 10_000),
  // Unset: 0 outside production, 5000 in it (long enough for a balancer to notice /readyz).
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).optional().describe('an integer from 0 to 600000'),
  HEADERS_TIMEOUT_MS: integer(1, 600_000, 10_000),
  REQUEST_TIMEOUT_MS: integer(1, 3_600_000, 30_000),
  // Above nginx's upstream keepalive_timeout (deploy/nginx.conf: 30 s; its default 60 s): the proxy closes an idle
  // connection first. The other way round, a POST nginx sends as the service closes the connection is a 502.
  KEEP_ALIVE_TIMEOUT_MS: integer(1, 3_600_000, 65_000),
  MAX_CONNECTIONS: integer(1, 1_000_000, 1_000),
  METRICS_TOKEN: secret(z.string().min(16).optional().describe('a token of 16 characters or more')),
});

export type MetricsAccess = 'open' | 'off' | { readonly token: string };

/** The HTTP channel's settings. */
export interface HttpSettings {
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  readonly sessionKeys: readonly string[];
  /** True when the keys were generated for this process (sessions end with it). */
  readonly sessionKeysGenerated: boolean;
  readonly devLogin: boolean;
  readonly bodyLimitBytes: number;
  readonly maxParams: number;
  /** The proxies whose X-Forwarded-*, X-Request-Id and trace context are taken (none: `[]`), or a count of hops (outside production). */
  readonly trustProxy: TrustProxy;
  /** Undefined: only the service's own origin (outside production). */
  readonly allowedOrigins: readonly string[] | undefined;
  readonly shutdownTimeoutMs: number;
  readonly shutdownDrainMs: number;
  readonly httpLimits: ServerLimits;
  /** Who may read GET /metrics: anyone (outside production), bearers of METRICS_TOKEN, or nobody (production without a token). */
  readonly metrics: MetricsAccess;
}

/** The server's configuration: the adapters' (the runtime's), the sessions' and the HTTP channel's own. */
export interface Config extends RuntimeConfig, SessionConfig, HttpSettings {}

/** Reads and checks the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Environment): Config {
  const problems: ConfigProblems = new Map();
  const runtime = readRuntimeConfig(env, problems);
  const sessions = readSessionConfig(env, problems);
  const http = readHttpSettings(env, { ...runtime, ...sessions }, problems);
  throwIfProblems(problems);
  return { ...runtime, ...sessions, ...http };
}

function readHttpSettings(env: Environment, runtime: RuntimeConfig & SessionConfig, problems: ConfigProblems): HttpSettings {
  const e = readVariables(HttpEnv, env, problems);
  const report = reporter(problems);
  const { production } = runtime;
  const php = runtime.sessionStore === 'php';
  // With the PHP app's sessions the service signs nothing: no keys to require.
  if (production && !php && !e.SESSION_KEYS) report('SESSION_KEYS', 'is required in production');
  if (php && e.DEV_LOGIN)
    report('DEV_LOGIN', 'must be 0 or unset with SESSION_STORE=php (sign-in belongs to the PHP app)', 'SESSION_STORE');
  if (production && e.DEV_LOGIN) report('DEV_LOGIN', 'must be 0 or unset in production (the dev sign-in routes)');
  // Production cookies are Secure; this server speaks plain HTTP, so it must learn HTTPS from the TLS proxy.
  if (production && e.TRUST_PROXY === undefined)
    report(
      'TRUST_PROXY',
      "is required in production: the TLS proxy's addresses or CIDR ranges, e.g. TRUST_PROXY=10.0.0.5 (Secure cookies need its X-Forwarded-Proto)",
    );
  // A count trusts whoever connects: anyone reaching an instance directly would choose the client IP and the idempotency key.
  if (production && typeof e.TRUST_PROXY === 'number')
    report(
      'TRUST_PROXY',
      'must name the proxies in production, not count them (a count trusts whoever connects): write their addresses or CIDR ranges instead, e.g. TRUST_PROXY=10.0.0.5 or TRUST_PROXY=loopback',
    );
  // Without it the service's own origin would come from X-Forwarded-Host, a header the proxy may pass through.
  if (production && !e.ALLOWED_ORIGINS)
    report('ALLOWED_ORIGINS', 'is required in production: the origins whose pages may POST, e.g. https://app.example.com');
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) report('HEADERS_TIMEOUT_MS', 'must not exceed REQUEST_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS');
  return {
    port: e.PORT,
    host: e.HOST,
    basePath: e.BASE_PATH,
    sessionKeys: e.SESSION_KEYS ?? [randomBytes(32).toString('base64url')],
    sessionKeysGenerated: !e.SESSION_KEYS && !php,
    devLogin: e.DEV_LOGIN ?? (runtime.upstreamBaseUrl === undefined && !php),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    maxParams: e.MAX_PARAMS,
    trustProxy: e.TRUST_PROXY ?? [],
    allowedOrigins: e.ALLOWED_ORIGINS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS ?? (production ? 5_000 : 0),
    httpLimits: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.MAX_CONNECTIONS,
    },
    metrics: e.METRICS_TOKEN !== undefined ? { token: e.METRICS_TOKEN } : production ? 'off' : 'open',
  };
}
