/** At most `perSecond` starts a second, evenly spaced; unlimited when undefined. */
export function pace(perSecond: number | undefined, now: () => number = Date.now): () => Promise<void> {
  if (perSecond === undefined) return () => Promise.resolve();
  const gapMs = 1000 / perSecond;
  let next = now();
  return () => {
    const at = Math.max(now(), next);
    next = at + gapMs;
    const wait = at - now();
    return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
  };
}
