// SESSION_STORE=php's settings and their rules, without the adapter (its decoder and Redis client):
// configuration reads this in every process; the adapter itself (`./php-session`) is imported only when chosen.
export {
  phpSettingsProblems,
  SAVE_HANDLERS,
  SESSION_FORMATS,
  TOUCH_MODES,
  type PhpSaveHandler,
  type PhpSessionFormat,
  type PhpSessionSettings,
  type PhpSessionTouch,
  type PhpSettingsProblem,
} from './php-session/options.js';
