import type { SessionStore } from '@cotizaciones/adapters';
import type { PhpSessions } from '@cotizaciones/adapters/php-session';
import type { PhpSessionSettings } from '@cotizaciones/adapters/php-session/options';
import type { Log } from './redacting-log.js';
import type { RuntimeConfig } from './runtime-config.js';

/** A session store that can be checked and closed (Redis). */
export interface OpenedSessionStore extends SessionStore {
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SESSION_STORE=redis: the shared store the service's own sessions live in. A Redis that is down at
 * start-up is waited for briefly, then answered 503 until it returns. Undefined for the other modes.
 */
export async function openSessionStore(config: RuntimeConfig, log: Log): Promise<OpenedSessionStore | undefined> {
  if (config.sessionStore !== 'redis' || config.redisUrl === undefined) return undefined;
  const store = (await import('@cotizaciones/adapters/redis')).redisSessionStore({
    url: config.redisUrl,
    prefix: config.redisKeyPrefix,
    onConnectionError: (error) => log.warn({ err: error }, 'session store (Redis) connection error'),
  });
  await store.ready(2_000).catch((error: unknown) => log.error({ err: error }, 'Redis is not reachable yet; answering 503 until it is'));
  return store;
}

/** SESSION_STORE=php: the PHP app's own sessions; a store that is down at start-up is waited for briefly, then answered 503 until it returns. */
export async function openPhpSessions(options: PhpSessionSettings | undefined, log: Log): Promise<PhpSessions | undefined> {
  if (options === undefined) return undefined;
  const { phpSessions } = await import('@cotizaciones/adapters/php-session');
  const sessions = phpSessions({
    ...options,
    // The problem carries a hash of the session id at most, never the id.
    onProblem: (problem) => {
      const line = { problem: problem.kind, session: problem.sessionHash, detail: problem.detail };
      // Idle sessions are the PHP app's own rule working; the rest is worth a look.
      if (problem.kind === 'idle') log.info(line, 'PHP session idle: answered as signed out');
      else log.warn(line, 'PHP session answered as signed out or not touched');
    },
    onConnectionError: (error) => log.warn({ err: error }, 'PHP sessions (Redis) connection error'),
  });
  await sessions.ready(2_000).catch((error: unknown) => log.error({ err: error }, 'the PHP session store is not reachable yet; answering 503 until it is'));
  return sessions;
}
