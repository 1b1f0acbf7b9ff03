/** Counts so far, for the progress display and the summary. */
export type Counts = Record<'ok' | 'rejected' | 'failed' | 'invalid' | 'malformed' | 'skipped' | 'dry-run', number>;

export interface Progress {
  update(done: number, counts: Counts): void;
  finish(): void;
}

const PLAIN_EVERY_MS = 2_000;
const BAR_EVERY_MS = 100;
const BAR_WIDTH = 30;

/** Seconds as m:ss, or h:mm:ss past an hour. */
const clock = (seconds: number) => {
  const s = Math.round(seconds);
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
};

const describe = (counts: Counts) =>
  Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');

/**
 * A bar redrawn in place on a terminal; elsewhere (a log file, CI) a plain line
 * every two seconds. `total` is the file's line count, an estimate for CSV cells
 * that span lines.
 */
export function progress(out: NodeJS.WriteStream, total: number, now: () => number = Date.now): Progress {
  let last = Number.NEGATIVE_INFINITY;
  let shown = '';
  const started = now();
  const line = (done: number, counts: Counts) => {
    const elapsedS = (now() - started) / 1000;
    const rate = elapsedS > 0 ? done / elapsedS : 0;
    const left = Math.max(0, total - done);
    const eta = rate > 0 ? `, about ${clock(left / rate)} left` : '';
    return `${Math.min(done, total)}/${total} lines (${describe(counts) || 'starting'}), ${rate.toFixed(rate < 10 ? 1 : 0)}/s, ${clock(elapsedS)} elapsed${eta}`;
  };
  if (!out.isTTY) {
    return {
      update(done, counts) {
        if (now() - last < PLAIN_EVERY_MS) return;
        last = now();
        out.write(`progress: ${line(done, counts)}\n`);
      },
      finish: () => undefined,
    };
  }
  return {
    update(done, counts) {
      if (now() - last < BAR_EVERY_MS && done < total) return;
      last = now();
      const filled = total === 0 ? BAR_WIDTH : Math.round((Math.min(done, total) / total) * BAR_WIDTH);
      shown = `[${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${line(done, counts)}`;
      out.write(`\r${shown}\x1b[K`);
    },
    finish: () => void (shown && out.write('\n')),
  };
}
