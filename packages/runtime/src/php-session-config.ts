import { z } from 'zod';
import {
  PHP_SESSION_DEFAULTS,
  phpSettingsProblems,
  SAVE_HANDLERS,
  savePathForms,
  SESSION_FORMATS,
  TOUCH_MODES,
  type PhpSaveHandlerEntry,
  type PhpSessionSettings,
} from '@cotizaciones/adapters/php-session/options';
import type { ConfigProblems } from './config-problems.js';
import { integer, ownWords, quoting, readVariables, type Environment } from './read-env.js';

const seconds = z
  .string()
  .trim()
  .regex(/^[1-9]\d{0,9}$/, quoting('is not a positive whole number of seconds'))
  .transform(Number);

/**
 * SESSION_STORE=php's variables: values copied from php.ini and the PHP app, in PHP's words. The defaults
 * are the adapter's (PHP_SESSION_DEFAULTS, and a handler's own in its entry), applied where unset.
 */
const PhpSessionEnv = z.object({
  // Checked against the save handlers' entries (phpSettingsProblems): a test may hand more.
  PHP_SESSION_SAVE_HANDLER: z.string().trim().default(SAVE_HANDLERS[0].name),
  PHP_SESSION_SAVE_PATH: z.string().trim().optional(),
  // php-memcached refuses a longer prefix; memcached keys hold no spaces or control characters.
  PHP_SESSION_MEMCACHED_PREFIX: ownWords(
    z
      .string()
      .trim()
      .regex(/^[!-~]{0,218}$/, quoting('is not a memcached.sess_prefix: up to 218 printable ASCII characters, no spaces'))
      .optional(),
  ),
  // Checked as SQL identifiers by the adapter's rules (phpSettingsProblems).
  PHP_SESSION_PDO_TABLE: z.string().trim().optional(),
  PHP_SESSION_PDO_COLUMNS: z.string().trim().optional(),
  PHP_SESSION_SERIALIZE_HANDLER: ownWords(
    z
      .string()
      .trim()
      .pipe(z.enum(SESSION_FORMATS, quoting('is not supported: expected php, php_serialize, php_binary or igbinary')))
      .default(PHP_SESSION_DEFAULTS.serializeHandler),
  ),
  // PHP refuses names with these characters, and names of digits only.
  PHP_SESSION_NAME: ownWords(
    z
      .string()
      .trim()
      .refine((name) => !/[=,; \t\r\n\v\f]/.test(name) && !/^\d+$/.test(name), quoting('is not a session cookie name PHP accepts'))
      .default(PHP_SESSION_DEFAULTS.name),
  ),
  PHP_SESSION_GC_MAXLIFETIME: ownWords(seconds.default(PHP_SESSION_DEFAULTS.gcMaxLifetimeSeconds)),
  PHP_SESSION_USER_KEY: ownWords(
    z
      .string()
      .trim()
      .refine((key) => !key.includes('|'), 'cannot contain "|" (PHP ends a session key there)')
      .default(PHP_SESSION_DEFAULTS.userKey),
  ),
  PHP_SESSION_ACTIVITY_KEY: z.string().trim().optional(),
  PHP_SESSION_IDLE_SECONDS: ownWords(seconds.optional()),
  PHP_SESSION_TOUCH: ownWords(
    z
      .string()
      .trim()
      .pipe(z.enum(TOUCH_MODES, quoting('is not one of none, expiry, activity')))
      .default(PHP_SESSION_DEFAULTS.touch),
  ),
  PHP_SESSION_MAX_BYTES: integer(1024, 64 * 1024 * 1024, PHP_SESSION_DEFAULTS.maxBytes).describe('a number of bytes from 1024 to 67108864'),
  PHP_SESSION_LOCK_WAITERS: integer(1, 10_000, PHP_SESSION_DEFAULTS.lockWaiters).describe('a number of requests from 1 to 10000'),
});

/** The order problems are listed in: the schema's, whichever check found them. */
const VARIABLES = Object.keys(PhpSessionEnv.shape);

/** A handler's own settings (the keys of its entry's `defaults`), by the variable that sets each. */
const OWN_SETTINGS = {
  memcachedPrefix: 'PHP_SESSION_MEMCACHED_PREFIX',
  pdoTable: 'PHP_SESSION_PDO_TABLE',
  pdoColumns: 'PHP_SESSION_PDO_COLUMNS',
} as const;

/**
 * SESSION_STORE=php's variables; each bad one becomes a line in `problems`, in the schema's order.
 * `handlers`: the save handlers PHP_SESSION_SAVE_HANDLER can name.
 */
export function readPhpSessionConfig(
  env: Environment,
  problems: ConfigProblems,
  handlers: readonly PhpSaveHandlerEntry[] = SAVE_HANDLERS,
): PhpSessionSettings | undefined {
  const found: ConfigProblems = new Map();
  const e = readVariables(PhpSessionEnv, env, found);
  const handler = handlers.find((one) => one.name === e.PHP_SESSION_SAVE_HANDLER);
  const savePath = e.PHP_SESSION_SAVE_PATH;
  if (savePath === undefined) {
    found.set('PHP_SESSION_SAVE_PATH', `PHP_SESSION_SAVE_PATH required: copy session.save_path from php.ini (${savePathForms(handlers)})`);
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
    ...ownSettings(handler, e),
    ...(e.PHP_SESSION_ACTIVITY_KEY === undefined ? {} : { activityKey: e.PHP_SESSION_ACTIVITY_KEY }),
    ...(e.PHP_SESSION_IDLE_SECONDS === undefined ? {} : { idleSeconds: e.PHP_SESSION_IDLE_SECONDS }),
  };
  // The rules between settings are the adapter's own; a value already refused is not blamed twice.
  const rules = savePath === undefined ? { ...settings, savePath: '/' } : settings;
  for (const { variable, line } of phpSettingsProblems(rules, handlers)) {
    if (!found.has(variable)) found.set(variable, line);
  }
  for (const variable of VARIABLES) {
    const line = found.get(variable);
    if (line !== undefined && !problems.has(variable)) problems.set(variable, line);
  }
  return found.size === 0 ? settings : undefined;
}

/** The chosen handler's own settings: each from its variable, or its entry's default. */
function ownSettings(handler: PhpSaveHandlerEntry | undefined, e: Partial<Record<string, unknown>>): Partial<PhpSessionSettings> {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(handler?.defaults ?? {})) {
    settings[key] = e[OWN_SETTINGS[key as keyof typeof OWN_SETTINGS]] ?? value;
  }
  return settings;
}
