import { z } from 'zod';
import type { PhpSessionSettings } from '@cotizaciones/adapters/php-session/options';
import { readActivityLogConfig, type ActivityLogConfig } from './activity-log-config.js';
import { throwIfProblems, type ConfigProblems } from './config-problems.js';
import { readPhpSessionConfig } from './php-session-config.js';
import { httpUrl, integer, readVariables, reporter, secret, type Environment } from './read-env.js';
import { tokenSourceOf, type TokenSourceConfig } from './token-source-config.js';

/** The variables that choose and set up the adapters, whatever the channel. */
const RuntimeEnv = z.object({
  NODE_ENV: z.string().optional(),
  UPSTREAM_BASE_URL: httpUrl('give the token in UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL'),
  UPSTREAM_TOKEN: secret(z.string().min(1).optional()),
  UPSTREAM_TOKEN_URL: httpUrl('give them in UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET'),
  UPSTREAM_CLIENT_ID: z.string().min(1).optional().describe('an OAuth2 client id'),
  UPSTREAM_CLIENT_SECRET: secret(z.string().min(1).optional()),
  UPSTREAM_SCOPE: z.string().min(1).optional().describe('OAuth2 scopes separated by spaces'),
  UPSTREAM_TOKEN_SESSION_KEY: z
    .string()
    .regex(/^[A-Za-z_][\w-]*$/)
    .optional()
    .describe('a property name of the session user, such as token'),
  UPSTREAM_TIMEOUT_MS: integer(1, 600_000, 10_000),
  UPSTREAM_CLIENT: z.enum(['got', 'undici']).default('got').describe('got or undici'),
  UPSTREAM_MAX_RESPONSE_BYTES: integer(1, 1024 * 1024 * 1024, 1024 * 1024),
  SESSION_STORE: z.enum(['cookie', 'redis', 'php']).default('cookie').describe('cookie, redis or php'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe('a redis:// or rediss:// URL'),
  REDIS_KEY_PREFIX: z.string().default('cotizaciones:sess:'),
  SESSION_IDLE_MINUTES: integer(1, 60 * 24 * 30, 30),
  SESSION_MAX_HOURS: integer(1, 24 * 365, 8),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('one of fatal, error, warn, info, debug, trace, silent'),
});

export type { TokenSourceConfig };

/** The adapters a configuration names, and how they are set up. */
export interface RuntimeConfig extends ActivityLogConfig {
  readonly production: boolean;
  /** Unset: the built-in demo upstream. */
  readonly upstreamBaseUrl: string | undefined;
  readonly tokenSource: TokenSourceConfig;
  readonly upstreamTimeoutMs: number;
  readonly upstreamClient: 'got' | 'undici';
  readonly upstreamMaxResponseBytes: number;
  readonly sessionStore: 'cookie' | 'redis' | 'php';
  /** SESSION_STORE=php: the PHP app's session settings (PHP_SESSION_*). */
  readonly phpSession: PhpSessionSettings | undefined;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly sessionIdleMs: number;
  readonly sessionMaxMs: number;
  readonly logLevel: string;
}

/** Reads the adapters' variables; every bad one becomes a line in `problems` (nothing is thrown). */
export function readRuntimeConfig(env: Environment, problems: ConfigProblems): RuntimeConfig {
  const e = readVariables(RuntimeEnv, env, problems);
  const report = reporter(problems);
  const production = e.NODE_ENV === 'production';
  const demo = e.UPSTREAM_BASE_URL === undefined;
  if (production && demo) report('UPSTREAM_BASE_URL', 'is required in production (the built-in demo upstream is for development)');
  const tokenSource = tokenSourceOf(e, demo, report);
  const php = e.SESSION_STORE === 'php';
  const phpSession = php ? readPhpSessionConfig(env, problems) : undefined;
  if (e.SESSION_STORE === 'redis' && !e.REDIS_URL) report('REDIS_URL', 'is required when SESSION_STORE=redis', 'SESSION_STORE');
  // A cookie session is readable by its holder and outlives sign-out: no upstream token in it.
  if (e.UPSTREAM_TOKEN_SESSION_KEY && e.SESSION_STORE === 'cookie') {
    report('UPSTREAM_TOKEN_SESSION_KEY', 'needs server-side sessions (SESSION_STORE=redis or php): with SESSION_STORE=cookie the token would sit in a readable cookie', 'SESSION_STORE');
  }
  const activityLog = readActivityLogConfig(env, problems);
  return {
    production,
    upstreamBaseUrl: e.UPSTREAM_BASE_URL,
    tokenSource,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamClient: e.UPSTREAM_CLIENT,
    upstreamMaxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    ...activityLog,
    sessionStore: e.SESSION_STORE,
    phpSession,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
    logLevel: e.LOG_LEVEL,
  };
}

/** Reads and checks the adapters' configuration; throws a ConfigError naming every bad variable. */
export function loadRuntimeConfig(env: Environment): RuntimeConfig {
  const problems: ConfigProblems = new Map();
  const config = readRuntimeConfig(env, problems);
  throwIfProblems(problems);
  return config;
}
