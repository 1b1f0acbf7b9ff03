/** One line per bad variable, keyed by its name (the first problem found wins). */
export type ConfigProblems = Map<string, string>;

const SHOWN_CHARACTERS = 40;

/**
 * `NAME must be …`, followed by the value when it may be shown: never a secret's; a URL only as
 * scheme://host:port/path (no user name, password, query or fragment); anything else cut short.
 */
export function configProblem(variable: string, expected: string, value: string | undefined): string {
  const shown = value === undefined ? undefined : showable(value);
  return shown === undefined ? `${variable} ${expected}` : `${variable} ${expected} (got ${shown})`;
}

function showable(value: string): string | undefined {
  if (value.includes('@') || value.includes('://')) {
    if (!URL.canParse(value)) return undefined;
    const url = new URL(value);
    return JSON.stringify(`${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`.slice(0, SHOWN_CHARACTERS * 2));
  }
  return value.length > SHOWN_CHARACTERS ? `${JSON.stringify(value.slice(0, SHOWN_CHARACTERS))}…` : JSON.stringify(value);
}

/** A configuration a channel refuses to start with: one line per bad variable, no secret in any. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** Throws {@link ConfigError} when anything was reported. */
export function throwIfProblems(problems: ConfigProblems): void {
  if (problems.size > 0) throw new ConfigError([...problems.values()]);
}
