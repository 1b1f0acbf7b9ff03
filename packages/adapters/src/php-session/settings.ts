// The PHP session adapter's settings and what it reports: types and constants only, shared by the
// configuration's rules, the save handlers' registry and the adapter.

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

export interface PhpSessionProblem {
  readonly kind:
    | 'undecodable'
    | 'empty'
    | 'oversized'
    | 'not-a-regular-file'
    | 'foreign-owner'
    | 'idle'
    | 'touch-failed'
    | 'touch-refused'
    /** The user key holds neither a user nor an id (reported once). */
    | 'user-shape';
  /** A hash of the session id, never the id. */
  readonly sessionHash?: string;
  readonly detail?: string;
  /**
   * How many more of this kind were not reported since the last report of it (empty and undecodable
   * sessions, and touches failing for one reason, are reported at most once a minute).
   */
  readonly unreported?: number;
}
