/**
 * docs/configuration.md's variables with their documented default (the first code span of the
 * Default column, paired by position where a row names several: `PORT`, `HOST` → `3000`, `127.0.0.1`).
 */
export function documentedVariables(markdown: string): Map<string, string | undefined> {
  const variables = new Map<string, string | undefined>();
  for (const line of markdown.split('\n').filter((row) => row.startsWith('| `'))) {
    const cells = line.split('|');
    const names = codeSpans(cells[1]!).filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name));
    const defaults = codeSpans(cells.at(-2)!);
    names.forEach((name, index) => variables.set(name, names.length === defaults.length ? defaults[index] : defaults[0]));
  }
  return variables;
}

/** The variables docs/configuration.md says are secrets: never quoted in an error line. */
export function documentedSecrets(markdown: string): string[] {
  const sentence = /quoted only when it is not a secret \(never ([^)]+)\)/.exec(markdown.replace(/\s+/g, ' '));
  return sentence === null ? [] : codeSpans(sentence[1]!);
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
