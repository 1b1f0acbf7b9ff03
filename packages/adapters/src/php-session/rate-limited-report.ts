/** A report that may come on every request: said at most once per `everyMs` per kind, with how many were not said. */
export function rateLimitedReport<P extends { readonly kind: string }>(
  report: (problem: P & { readonly unreported?: number }) => void,
  everyMs: number,
  now: () => number,
): (problem: P) => void {
  const last = new Map<string, { at: number; unreported: number }>();
  return (problem) => {
    const at = now();
    const seen = last.get(problem.kind);
    if (seen && at - seen.at < everyMs) {
      seen.unreported += 1;
      return;
    }
    last.set(problem.kind, { at, unreported: 0 });
    report(seen && seen.unreported > 0 ? { ...problem, unreported: seen.unreported } : problem);
  };
}
