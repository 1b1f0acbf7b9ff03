import { z } from 'zod';
import {
  phpSettingsProblems,
  SAVE_HANDLERS,
  SESSION_FORMATS,
  TOUCH_MODES,
  type PhpSessionSettings,
} from '@cotizaciones/adapters/php-session/options';
import type { ConfigProblems } from './config-problems.js';
import { integer, ownWords, quoting, readVariables, type Environment } from './read-env.js';

const seconds = z
  .string()
  .trim()
  .regex(/^[1-9]\d{0,9}$/, quoting('is not a positive whole number of seconds'))
  .transform(Number);

/** SESSION_STORE=php's variables: values copied from php.ini and the PHP app, in PHP's words. */
const PhpSessionEnv = z.object({
  PHP_SESSION_SAVE_HANDLER: ownWords(
    z
      .string()
      .trim()
      .pipe(
        z.enum(
          SAVE_HANDLERS,
          quoting('is not supported: expected files, redis or rediscluster (phpredis), memcached (php-memcached) or pdo (a session table)'),
        ),
      )
      .default('files'),
  ),
  PHP_SESSION_SAVE_PATH: z.string().trim().optional(),
  // php-memcached refuses a longer prefix; memcached keys hold no spaces or control characters.
  PHP_SESSION_MEMCACHED_PREFIX: ownWords(
    z
      .string()
      .trim()
      .regex(/^[!-~]{0,218}$/, quoting('is not a memcached.sess_prefix: up to 218 printable ASCII characters, no spaces'))
      .default('memc.sess.key.'),
  ),
  // Checked as SQL identifiers by the adapter's rules (phpSettingsProblems).
  PHP_SESSION_PDO_TABLE: z.string().trim().default('sessions'),
  PHP_SESSION_PDO_COLUMNS: z.string().trim().default('sess_id,sess_data,sess_lifetime,sess_time'),
  PHP_SESSION_SERIALIZE_HANDLER: ownWords(
    z
      .string()
      .trim()
      .pipe(z.enum(SESSION_FORMATS, quoting('is not supported: expected php, php_serialize, php_binary or igbinary')))
      .default('php'),
  ),
  // PHP refuses names with these characters, and names of digits only.
  PHP_SESSION_NAME: ownWords(
    z
      .string()
      .trim()
      .refine((name) => !/[=,; \t\r\n\v\f]/.test(name) && !/^\d+$/.test(name), quoting('is not a session cookie name PHP accepts'))
      .default('PHPSESSID'),
  ),
  PHP_SESSION_GC_MAXLIFETIME: ownWords(seconds.default(1440)),
  PHP_SESSION_USER_KEY: ownWords(
    z
      .string()
      .trim()
      .refine((key) => !key.includes('|'), 'cannot contain "|" (PHP ends a session key there)')
      .default('user'),
  ),
  PHP_SESSION_ACTIVITY_KEY: z.string().trim().optional(),
  PHP_SESSION_IDLE_SECONDS: ownWords(seconds.optional()),
  PHP_SESSION_TOUCH: ownWords(
    z
      .string()
      .trim()
      .pipe(z.enum(TOUCH_MODES, quoting('is not one of none, expiry, activity')))
      .default('expiry'),
  ),
  PHP_SESSION_MAX_BYTES: integer(1024, 64 * 1024 * 1024, 1024 * 1024).describe('a number of bytes from 1024 to 67108864'),
  PHP_SESSION_LOCK_WAITERS: integer(1, 10_000, 128).describe('a number of requests from 1 to 10000'),
});

/** The order problems are listed in: the schema's, whichever check found them. */
const VARIABLES = Object.keys(PhpSessionEnv.shape);

/** SESSION_STORE=php's variables; each bad one becomes a line in `problems`, in the schema's order. */
export function readPhpSessionConfig(env: Environment, problems: ConfigProblems): PhpSessionSettings | undefined {
  const found: ConfigProblems = new Map();
  const e = readVariables(PhpSessionEnv, env, found);
  const savePath = e.PHP_SESSION_SAVE_PATH;
  if (savePath === undefined) {
    found.set(
      'PHP_SESSION_SAVE_PATH',
      'PHP_SESSION_SAVE_PATH required: copy session.save_path from php.ini (a directory, tcp://host:port?… for redis, seed[]=host:port&… for rediscluster, host:port,… for memcached; for pdo, the database as mysql://…, postgres://… or sqlite:<file>)',
    );
  }
  const settings: PhpSessionSettings = {
    saveHandler: e.PHP_SESSION_SAVE_HANDLER,
    savePath: savePath ?? '',
    serializeHandler: e.PHP_SESSION_SERIALIZE_HANDLER,
    name: e.PHP_SESSION_NAME,
    gcMaxLifetimeSeconds: e.PHP_SESSION_GC_MAXLIFETIME,
    userKey: e.PHP_SESSION_USER_KEY,
    touch: e.PHP_SESSION_TOUCH,
    maxBytes: e.PHP_SESSION_MAX_BYTES,
    lockWaiters: e.PHP_SESSION_LOCK_WAITERS,
    ...(e.PHP_SESSION_SAVE_HANDLER === 'memcached' ? { memcachedPrefix: e.PHP_SESSION_MEMCACHED_PREFIX } : {}),
    ...(e.PHP_SESSION_SAVE_HANDLER === 'pdo' ? { pdoTable: e.PHP_SESSION_PDO_TABLE, pdoColumns: e.PHP_SESSION_PDO_COLUMNS } : {}),
    ...(e.PHP_SESSION_ACTIVITY_KEY === undefined ? {} : { activityKey: e.PHP_SESSION_ACTIVITY_KEY }),
    ...(e.PHP_SESSION_IDLE_SECONDS === undefined ? {} : { idleSeconds: e.PHP_SESSION_IDLE_SECONDS }),
  };
  // The rules between settings are the adapter's own; a value already refused is not blamed twice.
  const rules = savePath === undefined ? { ...settings, savePath: '/' } : settings;
  for (const { variable, line } of phpSettingsProblems(rules)) {
    if (!found.has(variable) && !(variable === 'PHP_SESSION_SAVE_PATH' && found.has('PHP_SESSION_SAVE_HANDLER'))) found.set(variable, line);
  }
  for (const variable of VARIABLES) {
    const line = found.get(variable);
    if (line !== undefined && !problems.has(variable)) problems.set(variable, line);
  }
  return found.size === 0 ? settings : undefined;
}
