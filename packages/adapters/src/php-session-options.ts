// SESSION_STORE=php's settings and their rules, without the adapter (its decoder and Redis client):
// configuration reads this in every process; the adapter itself (`./php-session`) is imported only when chosen.
export {
  PHP_SESSION_DEFAULTS,
  phpSettingsProblems,
  SAVE_HANDLERS,
  saveHandlerRefusal,
  savePathForms,
  SESSION_FORMATS,
  TOUCH_MODES,
  type PhpSaveHandler,
  type PhpSaveHandlerEntry,
  type PhpSessionFormat,
  type PhpSessionSettings,
  type PhpSessionTouch,
  type PhpSettingsProblem,
} from './php-session/options.js';
export { saveHandler, type SaveHandlerContext } from './php-session/save-handlers.js';
export type { PhpSaveHandlerStore, StoredSession, RewriteResult, ReadOptions } from './php-session/save-handler-store.js';
