/** Kinds remembered at most: a kind named after a failure's text must not grow the map without end. */
const MAX_KINDS = 64;

/**
 * A report that may come on every request: said at most once per `everyMs` per kind, with how many
 * were not said. The report is made only when it is said. Past MAX_KINDS kinds, a new kind is said
 * each time, never hidden.
 */
export function rateLimitedReport<P extends { readonly unreported?: number }>(
  report: (problem: P) => void,
  everyMs: number,
  now: () => number,
): (kind: string, problem: () => P) => void {
  const last = new Map<string, { at: number; unreported: number }>();
  return (kind, problem) => {
    const at = now();
    const seen = last.get(kind);
    if (seen && at - seen.at < everyMs) {
      seen.unreported += 1;
      return;
    }
    if (seen || last.size < MAX_KINDS) last.set(kind, { at, unreported: 0 });
    report(seen && seen.unreported > 0 ? { ...problem(), unreported: seen.unreported } : problem());
  };
}
