import type { ChangeLine } from './change-line.js';
import type { LineResult } from './line-result.js';

export interface OutageOptions {
  /** How long the upstream may stay unreachable before the run gives up. */
  readonly maxWaitMs: number;
  /** Aborted on Ctrl-C: a line waiting for the upstream is given up at once. */
  readonly signal: AbortSignal;
  /** Told once when an outage starts, and once when the upstream answers again. */
  readonly onOutage: (
    state: { readonly down: true; readonly message: string } | { readonly down: false; readonly waitedMs: number },
  ) => void;
  /** Told once, when the upstream stayed unreachable for `maxWaitMs`: the run must stop. */
  readonly onGiveUp: () => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface OutageGuard {
  /** Runs a line; a line that could not reach the upstream (nothing sent) is run again after a wait, until it can or the run gives up. */
  readonly run: (line: ChangeLine) => Promise<LineResult>;
  /** Resolves at once, or when an outage is over: no new line starts while the upstream is unreachable. */
  readonly clear: () => Promise<void>;
}

const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2_000;

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

/**
 * A connection refused or a name not resolved means nothing of the line was sent: it is tried
 * again, with backoff, instead of being marked failed, and no new line starts meanwhile. Past
 * `maxWaitMs` of outage the lines still waiting are failed as not sent, and the run stops.
 * Lines whose request may have reached the upstream (a reset, a timeout) are never retried here.
 */
export function outageGuard(run: (line: ChangeLine) => Promise<LineResult>, options: OutageOptions): OutageGuard {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  let downSince: number | undefined;
  let gaveUp = false;
  let over: Promise<void> = Promise.resolve();
  let end: () => void = () => undefined;

  const notSent = (result: LineResult) => result.code === 'UPSTREAM_UNREACHABLE';

  const wentDown = (result: LineResult) => {
    if (downSince !== undefined) return;
    downSince = now();
    over = new Promise((resolve) => (end = resolve));
    options.onOutage({ down: true, message: result.message });
  };
  const cameBack = () => {
    if (downSince === undefined) return;
    const waitedMs = now() - downSince;
    downSince = undefined;
    end();
    options.onOutage({ down: false, waitedMs });
  };

  return {
    clear: () => over,
    async run(line) {
      for (let attempt = 0; ; attempt += 1) {
        const result = await run(line);
        if (!notSent(result)) {
          cameBack();
          return result;
        }
        wentDown(result);
        const waited = now() - (downSince ?? now());
        if (gaveUp || waited >= options.maxWaitMs || options.signal.aborted) {
          if (!gaveUp && !options.signal.aborted) {
            gaveUp = true;
            options.onGiveUp();
          }
          end();
          return {
            ...result,
            message: `not sent: the upstream could not be reached for ${Math.round(waited / 1000)} s (${result.message})`,
          };
        }
        await sleep(Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** attempt, options.maxWaitMs - waited), options.signal);
      }
    },
  };
}
