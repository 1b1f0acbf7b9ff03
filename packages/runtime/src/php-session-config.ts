import { phpSessionOptionsFromEnv, PhpSessionEnvError, type PhpSessionEnvOptions } from '@cotizaciones/adapters/php-session/env';
import type { ConfigProblems } from './config-problems.js';
import type { Environment } from './read-env.js';

/** SESSION_STORE=php's variables, checked by the adapter's own rules; each bad one becomes a line. */
export function readPhpSessionConfig(env: Environment, problems: ConfigProblems): PhpSessionEnvOptions | undefined {
  try {
    return phpSessionOptionsFromEnv(env);
  } catch (error) {
    if (!(error instanceof PhpSessionEnvError)) throw error;
    // "PHP_SESSION_X: why" → "PHP_SESSION_X why", keyed by the variable like every other line.
    for (const line of error.problems) {
      const match = /^([A-Z_]+(?:, [A-Z_]+)*): (.*)$/s.exec(line);
      const variable = match?.[1] ?? line;
      if (!problems.has(variable)) problems.set(variable, match ? `${variable} ${match[2]}` : line);
    }
    return undefined;
  }
}
