import { SAVE_HANDLERS, saveHandlerNamed, type PhpSaveHandlerEntry } from './save-handlers.js';
import type { PhpSessionSettings, PhpSettingsProblem } from './settings.js';

// The light part of the PHP session adapter: its settings and their rules, loaded by configuration in every
// process; the adapter itself (its decoder) is imported with SESSION_STORE=php, and a save handler's store and client only when chosen.

export { SAVE_HANDLERS, type PhpSaveHandler, type PhpSaveHandlerEntry } from './save-handlers.js';
export {
  PHP_SESSION_DEFAULTS,
  SESSION_FORMATS,
  TOUCH_MODES,
  type PhpSessionFormat,
  type PhpSessionSettings,
  type PhpSessionTouch,
  type PhpSettingsProblem,
} from './settings.js';

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
