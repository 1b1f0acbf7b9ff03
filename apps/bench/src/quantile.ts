/** The q-quantile of ascending latencies (nearest rank): 0 when there are none. */
export const quantile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0);

/** Every latency of several runs in one ascending array. */
export function pooled(runs: readonly Float64Array[]): Float64Array {
  const all = new Float64Array(runs.reduce((sum, run) => sum + run.length, 0));
  let at = 0;
  for (const run of runs) {
    all.set(run, at);
    at += run.length;
  }
  return all.sort();
}
