import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isActivityLogUrl } from '@cotizaciones/adapters';
import { DEMO_TOKEN } from './demo-upstream.js';

const flag = z.enum(['0', '1', 'true', 'false']).transform((value) => value === '1' || value === 'true');
const positiveInt = (max: number) => z.coerce.number().int().positive().max(max);

/** The environment variables the service reads. Every value is a string, as the environment gives it. */
const Env = z.object({
  NODE_ENV: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_PATH: z
    .string()
    .default('')
    .refine((path) => path === '' || /^\/[^?#]*[^/?#]$/.test(path), 'must be empty or start with "/" and not end with "/"'),
  UPSTREAM_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPSTREAM_TOKEN: z.string().min(1).optional(),
  UPSTREAM_TOKEN_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPSTREAM_CLIENT_ID: z.string().min(1).optional(),
  UPSTREAM_CLIENT_SECRET: z.string().min(1).optional(),
  UPSTREAM_SCOPE: z.string().min(1).optional(),
  UPSTREAM_TOKEN_SESSION_KEY: z.string().regex(/^[A-Za-z_][\w-]*$/, 'must be a property name such as token').optional(),
  UPSTREAM_TIMEOUT_MS: positiveInt(600_000).default(10_000),
  UPSTREAM_CLIENT: z.enum(['got', 'undici']).default('got'),
  UPSTREAM_MAX_RESPONSE_BYTES: positiveInt(1024 * 1024 * 1024).default(1024 * 1024),
  ACTIVITY_LOG_URL: z
    .string()
    .default('sqlite:./data/activity.db')
    .refine(isActivityLogUrl, 'must be sqlite:<file>, postgres://…, mysql://… or memory:'),
  ACTIVITY_LOG_TABLE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain SQL table name').default('activity_log'),
  ACTIVITY_LOG_QUEUE_MAX: positiveInt(10_000_000).default(10_000),
  SESSION_KEYS: z
    .string()
    .transform((keys) => keys.split(',').map((key) => key.trim()).filter((key) => key !== ''))
    .refine((keys) => keys.length > 0 && keys.every((key) => key.length >= 16), 'must be comma-separated keys of 16 characters or more')
    .optional(),
  SESSION_STORE: z.enum(['cookie', 'redis']).default('cookie'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_KEY_PREFIX: z.string().default('cotizaciones:sess:'),
  SESSION_IDLE_MINUTES: positiveInt(60 * 24 * 30).default(30),
  SESSION_MAX_HOURS: positiveInt(24 * 365).default(8),
  DEV_LOGIN: flag.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: positiveInt(64 * 1024 * 1024).default(1024 * 1024),
  MAX_PARAMS: positiveInt(1_000_000).default(1000),
  TRUST_PROXY: flag.default(false),
  ALLOWED_ORIGINS: z
    .string()
    .transform((list) => list.split(',').map((origin) => origin.trim()).filter((origin) => origin !== ''))
    .refine((origins) => origins.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin.replace(/\/$/, '')), 'must be comma-separated origins such as https://app.example.com')
    .optional(),
  SHUTDOWN_TIMEOUT_MS: positiveInt(600_000).default(10_000),
  METRICS_TOKEN: z.string().min(16, 'must be 16 characters or more').optional(),
});

/** Where the upstream bearer token comes from. */
export type TokenSourceConfig =
  | { readonly kind: 'static'; readonly token: string }
  | {
      readonly kind: 'client-credentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scope: string | undefined;
    }
  | { readonly kind: 'session'; readonly key: string };

export interface Config {
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  /** Unset: the built-in demo upstream. */
  readonly upstreamBaseUrl: string | undefined;
  readonly tokenSource: TokenSourceConfig;
  readonly upstreamTimeoutMs: number;
  readonly upstreamClient: 'got' | 'undici';
  readonly upstreamMaxResponseBytes: number;
  readonly activityLogUrl: string;
  readonly activityLogTable: string;
  readonly activityLogQueueMax: number;
  readonly sessionKeys: readonly string[];
  /** True when the keys were generated for this process (sessions end with it). */
  readonly sessionKeysGenerated: boolean;
  readonly sessionStore: 'cookie' | 'redis';
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly sessionIdleMs: number;
  readonly sessionMaxMs: number;
  readonly devLogin: boolean;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly maxParams: number;
  readonly trustProxy: boolean;
  /** Undefined: only the service's own origin. */
  readonly allowedOrigins: readonly string[] | undefined;
  readonly shutdownTimeoutMs: number;
  readonly metricsToken: string | undefined;
}

/** A configuration the service refuses to start with; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads and checks the configuration; throws {@link ConfigError} naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  // An empty variable means unset, as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`${variable}: ${issue?.message ?? 'invalid'} (got ${JSON.stringify(env[variable] ?? '')})`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const demo = e.UPSTREAM_BASE_URL === undefined;

  if (production && demo) throw new ConfigError('UPSTREAM_BASE_URL: required in production (the demo upstream is for development)');
  const tokenSource = tokenSourceOf(e, demo);
  if (production && !e.SESSION_KEYS) throw new ConfigError('SESSION_KEYS: required in production');
  if (production && e.DEV_LOGIN) throw new ConfigError('DEV_LOGIN: the dev sign-in routes are refused in production');
  // Production cookies are Secure; this server speaks plain HTTP, so it must learn HTTPS from the TLS proxy.
  if (production && !e.TRUST_PROXY) throw new ConfigError('TRUST_PROXY: set it to 1 in production (Secure cookies need the TLS proxy\'s X-Forwarded-Proto)');
  if (e.SESSION_STORE === 'redis' && !e.REDIS_URL) throw new ConfigError('REDIS_URL: required when SESSION_STORE=redis');

  return {
    production,
    port: e.PORT,
    host: e.HOST,
    basePath: e.BASE_PATH,
    upstreamBaseUrl: e.UPSTREAM_BASE_URL,
    tokenSource,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamClient: e.UPSTREAM_CLIENT,
    upstreamMaxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    activityLogUrl: e.ACTIVITY_LOG_URL,
    activityLogTable: e.ACTIVITY_LOG_TABLE,
    activityLogQueueMax: e.ACTIVITY_LOG_QUEUE_MAX,
    sessionKeys: e.SESSION_KEYS ?? [randomBytes(32).toString('base64url')],
    sessionKeysGenerated: !e.SESSION_KEYS,
    sessionStore: e.SESSION_STORE,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
    devLogin: e.DEV_LOGIN ?? demo,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    maxParams: e.MAX_PARAMS,
    trustProxy: e.TRUST_PROXY,
    allowedOrigins: e.ALLOWED_ORIGINS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    metricsToken: e.METRICS_TOKEN,
  };
}

/** Exactly one token source: a static token, OAuth2 client credentials, or the user's own token in the session. */
function tokenSourceOf(e: z.infer<typeof Env>, demo: boolean): TokenSourceConfig {
  const chosen = (['UPSTREAM_TOKEN', 'UPSTREAM_TOKEN_URL', 'UPSTREAM_TOKEN_SESSION_KEY'] as const).filter((name) => e[name] !== undefined);
  if (chosen.length > 1) throw new ConfigError(`${chosen[1]}: set only one token source (also set: ${chosen[0]})`);
  if (e.UPSTREAM_TOKEN_URL) {
    if (!e.UPSTREAM_CLIENT_ID) throw new ConfigError('UPSTREAM_CLIENT_ID: required with UPSTREAM_TOKEN_URL');
    if (!e.UPSTREAM_CLIENT_SECRET) throw new ConfigError('UPSTREAM_CLIENT_SECRET: required with UPSTREAM_TOKEN_URL');
    return {
      kind: 'client-credentials',
      tokenUrl: e.UPSTREAM_TOKEN_URL,
      clientId: e.UPSTREAM_CLIENT_ID,
      clientSecret: e.UPSTREAM_CLIENT_SECRET,
      scope: e.UPSTREAM_SCOPE,
    };
  }
  if (e.UPSTREAM_TOKEN_SESSION_KEY) return { kind: 'session', key: e.UPSTREAM_TOKEN_SESSION_KEY };
  if (e.UPSTREAM_TOKEN) return { kind: 'static', token: e.UPSTREAM_TOKEN };
  if (demo) return { kind: 'static', token: DEMO_TOKEN };
  throw new ConfigError('UPSTREAM_TOKEN: required when UPSTREAM_BASE_URL is set (or UPSTREAM_TOKEN_URL, or UPSTREAM_TOKEN_SESSION_KEY)');
}
