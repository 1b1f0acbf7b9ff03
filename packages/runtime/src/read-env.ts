import { z } from 'zod';
import { configProblem, type ConfigProblems } from './config-problems.js';

// Each variable's schema ends in `.describe('what it must be')`: a bad value is reported as
// `NAME must be <that>`; a refinement says its own "must …". `secret(…)` marks a value never printed.

export const secret = <T extends z.ZodType>(schema: T) => schema.meta({ secret: true });
/** A variable whose errors are whole sentences that quote the value themselves (`"x" is not …`): `NAME "x" is not …`. */
export const ownWords = <T extends z.ZodType>(schema: T) => schema.meta({ ownWords: true });
/** The error of an {@link ownWords} check: the value, quoted, then what is wrong with it. */
export const quoting = (says: string) => ({ error: (issue: { input?: unknown }) => `"${String(issue.input)}" ${says}` });
export const flag = z.enum(['0', '1', 'true', 'false']).transform((value) => value === '1' || value === 'true');
export const integer = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback).describe(`an integer from ${min} to ${max}`);
export const httpUrl = (instead: string) =>
  z
    .url({ protocol: /^https?$/ })
    // got turns userinfo into Basic auth (replacing the bearer token), and the URL is printed at start-up.
    .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), `must not contain a user name or password (user:password@): ${instead}`)
    .optional()
    .describe('an http:// or https:// URL');

export type Environment = Readonly<Record<string, string | undefined>>;

/** The variables that are set: an empty one means unset, as in most shells' `VAR= cmd`. */
export function presentVariables(env: Environment): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/**
 * Reads the variables `schema` names. Each bad one becomes a line in `problems` and reads as its default,
 * so that the rules between variables can still be checked on the good ones.
 */
export function readVariables<S extends z.ZodRawShape>(
  schema: z.ZodObject<S>,
  env: Environment,
  problems: ConfigProblems,
): z.infer<z.ZodObject<S>> {
  const present = presentVariables(env);
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const variable = String(issue.path[0]);
    if (problems.has(variable)) continue;
    const meta = (schema.shape[variable] as z.ZodType | undefined)?.meta() as
      { description?: string; secret?: boolean; ownWords?: boolean } | undefined;
    if (meta?.ownWords) {
      problems.set(variable, `${variable} ${issue.message}`);
      continue;
    }
    const expected = issue.code === 'custom' ? issue.message : `must be ${meta?.description ?? 'valid'}`;
    problems.set(variable, configProblem(variable, expected, meta?.secret ? undefined : present[variable]));
  }
  return schema.parse(Object.fromEntries(Object.entries(present).filter(([name]) => !problems.has(name))));
}

/** Reports `variable`, unless it or a variable the rule also reads is already reported. */
export function reporter(problems: ConfigProblems) {
  return (variable: string, message: string, ...reads: string[]) => {
    if (![variable, ...reads].some((name) => problems.has(name))) problems.set(variable, `${variable} ${message}`);
  };
}
export type Report = ReturnType<typeof reporter>;
