/**
 * A Ctrl-C under `npm run`/`npm start` reaches node twice at once: the terminal signals the whole
 * process group, and npm passes the signal on to its child. A signal within this long of the first
 * is taken as that same one; only a later one means "again, stop now".
 */
export const SAME_SIGNAL_MS = 1_000;

/** Calls `first` on the first SIGINT or SIGTERM, and `again` on one that comes at least {@link SAME_SIGNAL_MS} later. */
export function onStopSignals(
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
  now: () => number = Date.now,
): void {
  let firstAt: number | undefined;
  const handle = (signal: NodeJS.Signals) => {
    if (firstAt === undefined) {
      firstAt = now();
      first(signal);
    } else if (now() - firstAt >= SAME_SIGNAL_MS) {
      again(signal);
    }
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
