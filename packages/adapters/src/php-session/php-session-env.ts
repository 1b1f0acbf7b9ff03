import { parseFilesSavePath, parseRedisSavePath } from './save-path.js';
import { SESSION_FORMATS, type PhpSessionFormat } from './session-formats.js';
import type { PhpSessionTouch, PhpSessionsOptions } from './php-sessions.js';

/** The PHP_SESSION_* variables that were wrong: one line each, naming the variable; no secret in any. */
export class PhpSessionEnvError extends Error {
  override readonly name = 'PhpSessionEnvError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

export type PhpSessionEnvOptions = Pick<
  PhpSessionsOptions,
  'saveHandler' | 'savePath' | 'serializeHandler' | 'name' | 'gcMaxLifetimeSeconds' | 'userKey' | 'activityKey' | 'idleSeconds' | 'touch'
>;

// Here, not beside the adapter: this file is the light entry configuration loads in every process.
export const FILES_ACTIVITY_REFUSAL =
  'PHP_SESSION_TOUCH=activity is not supported with the files handler: PHP rewrites a session file under its own flock, which Node cannot take, so writing the activity time could clobber or be clobbered by a PHP request; use expiry (or the redis handler)';

const TOUCH_MODES = ['none', 'expiry', 'activity'] as const;

/**
 * Reads `SESSION_STORE=php`'s variables (values copied from php.ini) into
 * `phpSessions` options, or throws PhpSessionEnvError listing every bad one.
 */
export function phpSessionOptionsFromEnv(env: NodeJS.ProcessEnv): PhpSessionEnvOptions {
  const problems: string[] = [];
  const get = (name: string) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const handlerText = get('PHP_SESSION_SAVE_HANDLER') ?? 'files';
  const saveHandler = handlerText === 'files' || handlerText === 'redis' ? handlerText : undefined;
  if (!saveHandler) {
    problems.push(`PHP_SESSION_SAVE_HANDLER: "${handlerText}" is not supported: expected files or redis (phpredis)`);
  }

  const savePath = get('PHP_SESSION_SAVE_PATH');
  if (savePath === undefined) {
    problems.push('PHP_SESSION_SAVE_PATH: required: copy session.save_path from php.ini (a directory, or tcp://host:port?… for redis)');
  } else if (saveHandler) {
    try {
      if (saveHandler === 'files') parseFilesSavePath(savePath);
      else parseRedisSavePath(savePath);
    } catch (error) {
      problems.push(`PHP_SESSION_SAVE_PATH: ${(error as Error).message}`);
    }
  }

  const serializerText = get('PHP_SESSION_SERIALIZE_HANDLER') ?? 'php';
  const serializeHandler = (SESSION_FORMATS as readonly string[]).includes(serializerText) ? (serializerText as PhpSessionFormat) : undefined;
  if (!serializeHandler) {
    problems.push(`PHP_SESSION_SERIALIZE_HANDLER: "${serializerText}" is not supported: expected php, php_serialize or php_binary`);
  }

  const name = get('PHP_SESSION_NAME') ?? 'PHPSESSID';
  // PHP refuses names with these characters, and names of digits only.
  if (/[=,; \t\r\n\v\f]/.test(name) || /^\d+$/.test(name)) problems.push(`PHP_SESSION_NAME: "${name}" is not a session cookie name PHP accepts`);

  const gcMaxLifetimeSeconds = positiveInt('PHP_SESSION_GC_MAXLIFETIME', get('PHP_SESSION_GC_MAXLIFETIME') ?? '1440');

  const userKey = get('PHP_SESSION_USER_KEY') ?? 'user';
  if (userKey.includes('|')) problems.push('PHP_SESSION_USER_KEY: a session key cannot contain "|"');

  const activityKey = get('PHP_SESSION_ACTIVITY_KEY');
  const idleText = get('PHP_SESSION_IDLE_SECONDS');
  const idleSeconds = idleText === undefined ? undefined : positiveInt('PHP_SESSION_IDLE_SECONDS', idleText);
  if ((activityKey === undefined) !== (idleText === undefined)) {
    problems.push('PHP_SESSION_ACTIVITY_KEY, PHP_SESSION_IDLE_SECONDS: set both (the session-control step) or neither');
  }

  const touchText = get('PHP_SESSION_TOUCH') ?? 'expiry';
  const touch = (TOUCH_MODES as readonly string[]).includes(touchText) ? (touchText as PhpSessionTouch) : undefined;
  if (!touch) problems.push(`PHP_SESSION_TOUCH: "${touchText}" is not one of none, expiry, activity`);
  if (touch === 'activity' && activityKey === undefined) problems.push('PHP_SESSION_TOUCH: activity needs PHP_SESSION_ACTIVITY_KEY');
  if (touch === 'activity' && saveHandler === 'files') problems.push(FILES_ACTIVITY_REFUSAL);

  if (problems.length > 0 || !saveHandler || savePath === undefined || !serializeHandler || !touch || gcMaxLifetimeSeconds === undefined) {
    throw new PhpSessionEnvError(problems);
  }
  return {
    saveHandler,
    savePath,
    serializeHandler,
    name,
    gcMaxLifetimeSeconds,
    userKey,
    touch,
    ...(activityKey !== undefined && idleSeconds !== undefined ? { activityKey, idleSeconds } : {}),
  };

  function positiveInt(variable: string, text: string): number | undefined {
    if (/^[1-9]\d{0,9}$/.test(text)) return Number(text);
    problems.push(`${variable}: "${text}" is not a positive whole number of seconds`);
    return undefined;
  }
}
