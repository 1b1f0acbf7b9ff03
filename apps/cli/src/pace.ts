/** Starts that fall behind the schedule (a slow upstream, a pause) are caught up by at most this many at once. */
const CATCH_UP = 10;

/**
 * At most `perSecond` starts a second, evenly spaced; unlimited when undefined. Each start is
 * scheduled from the previous one's ideal time, not from when its timer fired: timers fire late,
 * and time lost to each would add up to a slower rate.
 */
export function pace(
  perSecond: number | undefined,
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): () => Promise<void> {
  if (perSecond === undefined) return () => Promise.resolve();
  const gapMs = 1000 / perSecond;
  let next = now();
  return () => {
    const at = Math.max(next, now() - CATCH_UP * gapMs);
    next = at + gapMs;
    const wait = at - now();
    return wait > 0 ? sleep(wait) : Promise.resolve();
  };
}
