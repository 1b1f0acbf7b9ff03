import { parsePdoColumns, parsePdoSavePath, parsePdoTable } from './pdo-table.js';
import { parseFilesSavePath, parseMemcachedSavePath, parseRedisClusterSavePath, parseRedisSavePath } from './save-path.js';

// The light part of the PHP session adapter: its settings and their rules, loaded by configuration in every
// process; the adapter itself (decoder, Redis and memcached clients) is imported only when chosen.

export type PhpSaveHandler = 'files' | 'redis' | 'rediscluster' | 'memcached' | 'pdo';
export const SAVE_HANDLERS: readonly PhpSaveHandler[] = ['files', 'redis', 'rediscluster', 'memcached', 'pdo'];
/** `session.serialize_handler` values this adapter reads. */
export const SESSION_FORMATS = ['php', 'php_serialize', 'php_binary', 'igbinary'] as const;
export type PhpSessionFormat = (typeof SESSION_FORMATS)[number];
export const TOUCH_MODES = ['none', 'expiry', 'activity'] as const;
export type PhpSessionTouch = (typeof TOUCH_MODES)[number];

/** The settings a deployment copies from php.ini and the PHP app (the PHP_SESSION_* variables). */
export interface PhpSessionSettings {
  /** php.ini `session.save_handler`. */
  readonly saveHandler: PhpSaveHandler;
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

/** A rule between settings that a set of them breaks: the PHP_SESSION_* variable to blame, and the whole line. */
export interface PhpSettingsProblem {
  readonly variable: string;
  readonly line: string;
}

/**
 * The rules between the settings, in one place: the configuration reports them at start-up and the
 * adapter refuses them when called directly. Each value's own format is the configuration's to check.
 */
export function phpSettingsProblems(settings: PhpSessionSettings): PhpSettingsProblem[] {
  const problems: PhpSettingsProblem[] = [];
  try {
    if (settings.saveHandler === 'files') parseFilesSavePath(settings.savePath);
    else if (settings.saveHandler === 'memcached') parseMemcachedSavePath(settings.savePath);
    else if (settings.saveHandler === 'rediscluster') parseRedisClusterSavePath(settings.savePath);
    else if (settings.saveHandler === 'pdo') parsePdoSavePath(settings.savePath);
    else parseRedisSavePath(settings.savePath);
  } catch (error) {
    problems.push({ variable: 'PHP_SESSION_SAVE_PATH', line: `PHP_SESSION_SAVE_PATH ${(error as Error).message}` });
  }
  for (const [variable, value, parse] of [
    ['PHP_SESSION_PDO_TABLE', settings.pdoTable, parsePdoTable],
    ['PHP_SESSION_PDO_COLUMNS', settings.pdoColumns, parsePdoColumns],
  ] as const) {
    try {
      if (value !== undefined) parse(value);
    } catch (error) {
      problems.push({ variable, line: `${variable} "${value}" ${(error as Error).message}` });
    }
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
