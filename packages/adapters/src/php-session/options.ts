import { SAVE_HANDLERS, saveHandlerNamed, type PhpSaveHandlerEntry } from './save-handlers.js';

// The light part of the PHP session adapter: its settings and their rules, loaded by configuration in every
// process; the adapter itself (its decoder) is imported with SESSION_STORE=php, and a save handler's store and client only when chosen.

export { SAVE_HANDLERS, type PhpSaveHandler, type PhpSaveHandlerEntry } from './save-handlers.js';
/** `session.serialize_handler` values this adapter reads. */
export const SESSION_FORMATS = ['php', 'php_serialize', 'php_binary', 'igbinary'] as const;
export type PhpSessionFormat = (typeof SESSION_FORMATS)[number];
export const TOUCH_MODES = ['none', 'expiry', 'activity'] as const;
export type PhpSessionTouch = (typeof TOUCH_MODES)[number];

/** The settings a deployment copies from php.ini and the PHP app (the PHP_SESSION_* variables). */
export interface PhpSessionSettings {
  /** php.ini `session.save_handler`: the name of an entry of `SAVE_HANDLERS` (or of the handlers given beside). */
  readonly saveHandler: string;
  /** php.ini `session.save_path`. */
  readonly savePath: string;
  /** php.ini `session.serialize_handler`. Default `php`. */
  readonly serializeHandler?: PhpSessionFormat;
  /** php.ini `session.name`. Default `PHPSESSID`. */
  readonly name?: string;
  /** php.ini `session.gc_maxlifetime`. Default 1440. */
  readonly gcMaxLifetimeSeconds?: number;
  /** The top-level key holding the user (an array or object with `id`, or the id itself). Default `user`. */
  readonly userKey?: string;
  /** The PHP app's session-control step: a top-level Unix time, and how old it may be. */
  readonly activityKey?: string;
  readonly idleSeconds?: number;
  /** What a request writes back. Default `expiry`. */
  readonly touch?: PhpSessionTouch;
  /** Largest session read, in bytes, checked before anything is transferred. Default 1 MiB. */
  readonly maxBytes?: number;
  /** `files`, `memcached`: how many requests may wait on PHP's session locks at once, across all sessions (at most 6 of them for one session, 8 from one client). Default 128. */
  readonly lockWaiters?: number;
  /** `memcached`: php.ini `memcached.sess_prefix`. Default `memc.sess.key.`. */
  readonly memcachedPrefix?: string;
  /** `pdo`: the session table (`table` or `schema.table`). Default `sessions`. */
  readonly pdoTable?: string;
  /** `pdo`: its id, data, lifetime and time columns (`parsePdoColumns`). Default Symfony's `sess_id,sess_data,sess_lifetime,sess_time`. */
  readonly pdoColumns?: string;
}

/** The defaults of the settings every handler has (a handler's own are in its entry): the configuration's and the adapter's. */
export const PHP_SESSION_DEFAULTS = {
  serializeHandler: 'php',
  name: 'PHPSESSID',
  gcMaxLifetimeSeconds: 1440,
  userKey: 'user',
  touch: 'expiry',
  maxBytes: 1024 * 1024,
  lockWaiters: 128,
} as const satisfies Partial<PhpSessionSettings>;

/** A rule between settings that a set of them breaks: the PHP_SESSION_* variable to blame, and the whole line. */
export interface PhpSettingsProblem {
  readonly variable: string;
  readonly line: string;
}

/**
 * The rules between the settings, in one place: the configuration reports them at start-up and the
 * adapter refuses them when called directly. Each value's own format is the configuration's to check.
 */
export function phpSettingsProblems(
  settings: PhpSessionSettings,
  handlers: readonly PhpSaveHandlerEntry[] = SAVE_HANDLERS,
): PhpSettingsProblem[] {
  const problems: PhpSettingsProblem[] = [];
  const handler = saveHandlerNamed(settings.saveHandler, handlers);
  if (handler === undefined) {
    problems.push({
      variable: 'PHP_SESSION_SAVE_HANDLER',
      line: `PHP_SESSION_SAVE_HANDLER "${settings.saveHandler}" ${saveHandlerRefusal(handlers)}`,
    });
  } else {
    try {
      handler.parseSavePath(settings.savePath);
    } catch (error) {
      problems.push({ variable: 'PHP_SESSION_SAVE_PATH', line: `PHP_SESSION_SAVE_PATH ${(error as Error).message}` });
    }
    problems.push(...(handler.problems?.(settings) ?? []));
  }
  const { activityKey, idleSeconds, touch } = settings;
  if (activityKey !== undefined && idleSeconds === undefined) {
    problems.push({
      variable: 'PHP_SESSION_IDLE_SECONDS',
      line: 'PHP_SESSION_IDLE_SECONDS is required with PHP_SESSION_ACTIVITY_KEY (the session-control step: set both or neither)',
    });
  }
  if (activityKey === undefined && idleSeconds !== undefined) {
    problems.push({
      variable: 'PHP_SESSION_ACTIVITY_KEY',
      line: 'PHP_SESSION_ACTIVITY_KEY is required with PHP_SESSION_IDLE_SECONDS (the session-control step: set both or neither)',
    });
  }
  if (touch === 'activity' && settings.saveHandler === 'files') {
    problems.push({
      variable: 'PHP_SESSION_TOUCH',
      line: 'PHP_SESSION_TOUCH=activity is not supported with the files handler: PHP rewrites a session file under its own flock, so writing the activity time would mean rewriting the file under that lock, holding up the PHP requests of that session, which the service does not do; use expiry (or the redis handler)',
    });
  } else if (touch === 'activity' && activityKey === undefined) {
    problems.push({ variable: 'PHP_SESSION_TOUCH', line: 'PHP_SESSION_TOUCH activity needs PHP_SESSION_ACTIVITY_KEY' });
  }
  return problems;
}

/** What is said of a save handler that is none of `handlers`, after its name. */
export function saveHandlerRefusal(handlers: readonly PhpSaveHandlerEntry[] = SAVE_HANDLERS): string {
  const named = handlers.map((handler) => `${handler.name} (${handler.owner})`);
  return `is not supported: expected ${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}

/** Where `session.save_path` comes from and its form for each of `handlers`, as a missing save path is asked for. */
export function savePathForms(handlers: readonly PhpSaveHandlerEntry[] = SAVE_HANDLERS): string {
  return handlers.map((handler) => `${handler.savePathForm} for ${handler.name}`).join('; ');
}
