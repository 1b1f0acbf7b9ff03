import { cookieSessionStore, type SessionStore } from '@cotizaciones/adapters';
import type { Log } from './redacting-log.js';
import type { SessionConfig } from './session-config.js';

/**
 * The session store the configuration names, for a channel that has sessions (the web's). A store
 * that is down at start-up is waited for briefly, then opened anyway: it is connected to later, and
 * until then every session read fails as unavailable (the store's `ping` says so meanwhile).
 * A record backend's client and the PHP adapters are imported only when chosen.
 */
export async function openSessionStore(config: SessionConfig, log: Log): Promise<SessionStore> {
  const store = await storeFor(config, log);
  await store
    .ready(2_000)
    .catch((error: unknown) => log.error({ err: error }, 'the session store is not reachable yet; sessions are unavailable until it is'));
  return store;
}

async function storeFor(config: SessionConfig, log: Log): Promise<SessionStore> {
  if (config.records !== undefined) return config.records.backend.open(config.records.variables, log);
  if (config.sessionStore === 'php' && config.phpSession !== undefined) {
    const { phpSessions } = await import('@cotizaciones/adapters/php-session');
    const store = phpSessions({
      ...config.phpSession,
      ...(config.phpSaveHandlers === undefined ? {} : { handlers: config.phpSaveHandlers }),
      // The problem carries a hash of the session id at most, never the id.
      onProblem: (problem) => {
        const line = { problem: problem.kind, session: problem.sessionHash, detail: problem.detail, unreported: problem.unreported };
        // Idle sessions are the PHP app's own rule working; the rest is worth a look.
        if (problem.kind === 'idle') log.info(line, 'PHP session idle: answered as signed out');
        else log.warn(line, 'PHP session answered as signed out or not touched');
      },
      // The handler's own name for it (its entry's), known once the store is: errors come after that.
      onConnectionError: (error) => log.warn({ err: error }, `${store.logName} connection error`),
    });
    return store;
  }
  return cookieSessionStore();
}
