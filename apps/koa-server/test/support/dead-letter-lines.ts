import { existsSync, readFileSync } from 'node:fs';

/** A dead-letter line as the tests read it: why, and which entry. */
export interface SetAside {
  readonly code: string;
  readonly entry: { readonly entityId: string; readonly requestId: string | null; readonly userAgent: string | null };
}

/** The lines of a dead-letter file (none when it does not exist). */
export function deadLetterLines(file: string): SetAside[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SetAside);
}
