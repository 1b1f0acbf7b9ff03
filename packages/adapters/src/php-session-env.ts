// SESSION_STORE=php's variables checked without loading the adapter (its Redis client): configuration
// reads this in every process; the adapter itself (`./php-session`) is imported only when chosen.
export { phpSessionOptionsFromEnv, PhpSessionEnvError, type PhpSessionEnvOptions } from './php-session/php-session-env.js';
