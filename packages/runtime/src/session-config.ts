import { z } from 'zod';
import type { PhpSessionSettings } from '@cotizaciones/adapters/php-session/options';
import type { ConfigProblems } from './config-problems.js';
import { readPhpSessionConfig } from './php-session-config.js';
import { integer, presentVariables, readVariables, reporter, type Environment } from './read-env.js';

/** The variables of the web channel's sessions: read only by a channel that has sessions. */
const SessionEnv = z.object({
  SESSION_STORE: z.enum(['cookie', 'redis', 'php']).default('cookie').describe('cookie, redis or php'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe('a redis:// or rediss:// URL'),
  REDIS_KEY_PREFIX: z.string().default('cotizaciones:sess:'),
  SESSION_IDLE_MINUTES: integer(1, 60 * 24 * 30, 30),
  SESSION_MAX_HOURS: integer(1, 24 * 365, 8),
});

/** Where a channel's sessions live and how long they last. */
export interface SessionConfig {
  readonly sessionStore: 'cookie' | 'redis' | 'php';
  /** SESSION_STORE=php: the PHP app's session settings (PHP_SESSION_*). */
  readonly phpSession: PhpSessionSettings | undefined;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly sessionIdleMs: number;
  readonly sessionMaxMs: number;
}

/** SESSION_* (and PHP_SESSION_* for SESSION_STORE=php); every bad variable becomes a line in `problems`. */
export function readSessionConfig(env: Environment, problems: ConfigProblems): SessionConfig {
  const e = readVariables(SessionEnv, env, problems);
  const report = reporter(problems);
  const phpSession = e.SESSION_STORE === 'php' ? readPhpSessionConfig(env, problems) : undefined;
  if (e.SESSION_STORE === 'redis' && !e.REDIS_URL) report('REDIS_URL', 'is required when SESSION_STORE=redis', 'SESSION_STORE');
  // A cookie session is readable by its holder and outlives sign-out: no upstream token in it.
  if (presentVariables(env).UPSTREAM_TOKEN_SESSION_KEY && e.SESSION_STORE === 'cookie') {
    report(
      'UPSTREAM_TOKEN_SESSION_KEY',
      'needs server-side sessions (SESSION_STORE=redis or php): with SESSION_STORE=cookie the token would sit in a readable cookie',
      'SESSION_STORE',
    );
  }
  return {
    sessionStore: e.SESSION_STORE,
    phpSession,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
  };
}
