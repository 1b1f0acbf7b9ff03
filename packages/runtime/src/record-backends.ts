import { z } from 'zod';
import type { RecordSessionStore } from '@cotizaciones/adapters';
import type { ConfigProblems } from './config-problems.js';
import type { Log } from './redacting-log.js';
import { readVariables, reporter, type Environment } from './read-env.js';

/**
 * A backend of the service's own session records (the `records` kind): the `SESSION_STORE` value
 * that chooses it, the variables it reads once chosen, and how it opens (docs/recipes.md, "Add a
 * session backend"). The web channel binds every `records` store the same way.
 */
export interface RecordBackend {
  /** Its `SESSION_STORE` value, also where the records live as a span says it. */
  readonly name: string;
  /** Its variables, read only when it is chosen; each one documented in docs/configuration.md. */
  readonly variables: z.ZodObject;
  /** The variables it cannot do without: one missing is a problem naming SESSION_STORE. */
  readonly required: readonly string[];
  /** Opens it from its variables' values (importing its client only now). */
  open(variables: unknown, log: Log): Promise<RecordSessionStore>;
}

/** A {@link RecordBackend} whose `open` gets its variables typed by their schema. */
export function recordBackend<S extends z.ZodRawShape>(backend: {
  readonly name: string;
  readonly variables: z.ZodObject<S>;
  readonly required?: readonly (keyof S & string)[];
  readonly open: (variables: z.infer<z.ZodObject<S>>, log: Log) => Promise<RecordSessionStore>;
}): RecordBackend {
  return {
    name: backend.name,
    variables: backend.variables,
    required: backend.required ?? [],
    // The values are what readRecordBackend read through this same schema; the store carries its entry's name to the traces.
    open: async (variables, log) => Object.assign(await backend.open(variables as z.infer<z.ZodObject<S>>, log), { mode: backend.name }),
  };
}

const RedisEnv = z.object({
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe('a redis:// or rediss:// URL'),
  REDIS_KEY_PREFIX: z.string().default('cotizaciones:sess:'),
});

/** SESSION_STORE=redis: records in Redis, under a key prefix. */
export const REDIS_RECORDS = recordBackend({
  name: 'redis',
  variables: RedisEnv,
  required: ['REDIS_URL'],
  open: async (variables, log) =>
    (await import('@cotizaciones/adapters/redis')).redisSessionStore({
      url: variables.REDIS_URL ?? '',
      prefix: variables.REDIS_KEY_PREFIX,
      onConnectionError: (error) => log.warn({ err: error }, 'session store (Redis) connection error'),
    }),
});

/** The record backends `SESSION_STORE` can name, besides `cookie` and `php`. */
export const RECORD_BACKENDS: readonly RecordBackend[] = [REDIS_RECORDS];

/** The chosen backend's variables; each bad or missing one becomes a line in `problems`. */
export function readRecordBackend(backend: RecordBackend, env: Environment, problems: ConfigProblems): unknown {
  const variables: Record<string, unknown> = readVariables(backend.variables, env, problems);
  const report = reporter(problems);
  for (const name of backend.required) {
    if (variables[name] === undefined) report(name, `is required when SESSION_STORE=${backend.name}`, 'SESSION_STORE');
  }
  return variables;
}
