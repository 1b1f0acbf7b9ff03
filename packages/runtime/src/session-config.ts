import { z } from 'zod';
import type { PhpSaveHandlerEntry, PhpSessionSettings } from '@cotizaciones/adapters/php-session/options';
import { configProblem, type ConfigProblems } from './config-problems.js';
import { readPhpSessionConfig } from './php-session-config.js';
import { RECORD_BACKENDS, readRecordBackend, type RecordBackend } from './record-backends.js';
import { integer, presentVariables, readVariables, reporter, type Environment } from './read-env.js';

/** The variables of the web channel's sessions: read only by a channel that has sessions. A record backend's own are in record-backends.ts. */
const SessionEnv = z.object({
  SESSION_STORE: z.string().default('cookie'),
  SESSION_IDLE_MINUTES: integer(1, 60 * 24 * 30, 30),
  SESSION_MAX_HOURS: integer(1, 24 * 365, 8),
});

/** Where a channel's sessions live and how long they last. */
export interface SessionConfig {
  /** `cookie`, `php`, or the name of a record backend. */
  readonly sessionStore: string;
  /** SESSION_STORE=php: the PHP app's session settings (PHP_SESSION_*). */
  readonly phpSession: PhpSessionSettings | undefined;
  /** The save handlers PHP_SESSION_SAVE_HANDLER could name, when not the adapter's own (`SAVE_HANDLERS`). */
  readonly phpSaveHandlers?: readonly PhpSaveHandlerEntry[];
  /** SESSION_STORE=<a record backend>: that backend and its variables' values. */
  readonly records: { readonly backend: RecordBackend; readonly variables: unknown } | undefined;
  readonly sessionIdleMs: number;
  readonly sessionMaxMs: number;
}

/**
 * SESSION_* (and PHP_SESSION_* for SESSION_STORE=php, the chosen record backend's variables); every bad
 * variable becomes a line in `problems`. `backends`: the record backends SESSION_STORE can name;
 * `phpSaveHandlers`: the save handlers PHP_SESSION_SAVE_HANDLER can name (default the adapter's).
 */
export function readSessionConfig(
  env: Environment,
  problems: ConfigProblems,
  backends: readonly RecordBackend[] = RECORD_BACKENDS,
  phpSaveHandlers?: readonly PhpSaveHandlerEntry[],
): SessionConfig {
  const e = readVariables(SessionEnv, env, problems);
  const report = reporter(problems);
  const stores = ['cookie', ...backends.map((backend) => backend.name), 'php'];
  let sessionStore = e.SESSION_STORE;
  if (!stores.includes(sessionStore)) {
    problems.set('SESSION_STORE', configProblem('SESSION_STORE', `must be ${stores.slice(0, -1).join(', ')} or php`, sessionStore));
    sessionStore = 'cookie';
  }
  const phpSession = sessionStore === 'php' ? readPhpSessionConfig(env, problems, phpSaveHandlers) : undefined;
  const backend = backends.find((one) => one.name === sessionStore);
  const records = backend === undefined ? undefined : { backend, variables: readRecordBackend(backend, env, problems) };
  // A cookie session is readable by its holder and outlives sign-out: no upstream token in it.
  if (presentVariables(env).UPSTREAM_TOKEN_SESSION_KEY && sessionStore === 'cookie') {
    report(
      'UPSTREAM_TOKEN_SESSION_KEY',
      `needs server-side sessions (SESSION_STORE=${stores.slice(1).join(' or ')}): with SESSION_STORE=cookie the token would sit in a readable cookie`,
      'SESSION_STORE',
    );
  }
  return {
    sessionStore,
    phpSession,
    ...(phpSaveHandlers === undefined ? {} : { phpSaveHandlers }),
    records,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
  };
}
