import { z } from 'zod';
import { readActivityLogConfig, type ActivityLogConfig } from './activity-log-config.js';
import { throwIfProblems, type ConfigProblems } from './config-problems.js';
import { httpUrl, integer, readVariables, reporter, secret, type Environment } from './read-env.js';
import { tokenSourceOf, type TokenSourceConfig } from './token-source-config.js';
import { readTracingConfig, type TracingConfig } from './tracing-config.js';

/** The variables that choose and set up the adapters every channel uses (sessions are the web channel's: session-config.ts). */
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
  readonly logLevel: string;
  /** OpenTelemetry traces (OTEL_*): off unless an endpoint is set. */
  readonly tracing: TracingConfig;
}

/** Reads the adapters' variables; every bad one becomes a line in `problems` (nothing is thrown). */
export function readRuntimeConfig(env: Environment, problems: ConfigProblems): RuntimeConfig {
  const e = readVariables(RuntimeEnv, env, problems);
  const report = reporter(problems);
  const production = e.NODE_ENV === 'production';
  const demo = e.UPSTREAM_BASE_URL === undefined;
  if (production && demo) report('UPSTREAM_BASE_URL', 'is required in production (the built-in demo upstream is for development)');
  const tokenSource = tokenSourceOf(e, demo, report);
  const activityLog = readActivityLogConfig(env, problems);
  return {
    production,
    upstreamBaseUrl: e.UPSTREAM_BASE_URL,
    tokenSource,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamClient: e.UPSTREAM_CLIENT,
    upstreamMaxResponseBytes: e.UPSTREAM_MAX_RESPONSE_BYTES,
    ...activityLog,
    logLevel: e.LOG_LEVEL,
    tracing: readTracingConfig(env, problems),
  };
}

/** Reads and checks the adapters' configuration; throws a ConfigError naming every bad variable. */
export function loadRuntimeConfig(env: Environment): RuntimeConfig {
  const problems: ConfigProblems = new Map();
  const config = readRuntimeConfig(env, problems);
  throwIfProblems(problems);
  return config;
}
