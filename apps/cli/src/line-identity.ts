import type { ChangeLine } from './change-line.js';

/**
 * A line's identity: what it asks for (its content's hash) and which line with that content it is
 * in the file (its occurrence, from 1), never its position. Inserting, removing or moving lines
 * leaves every other line's identity as it was; an edited line gets a new one.
 */
export const lineKey = (line: Pick<ChangeLine, 'hash' | 'occurrence'>): string => `${line.hash}:${line.occurrence}`;

/** A line's idempotency key, also its audit row's request id: `<run id>:<content hash>:<occurrence>`. */
export const lineRequestId = (runId: string, line: Pick<ChangeLine, 'hash' | 'occurrence'>): string => `${runId}:${lineKey(line)}`;

/** Numbers the lines of one file by content: each call says how many lines with this hash were seen, this one included. */
export function occurrenceCounter(): (hash: string) => number {
  const seen = new Map<string, number>();
  return (hash) => {
    const occurrence = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, occurrence);
    return occurrence;
  };
}
