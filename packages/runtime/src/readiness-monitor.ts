import { findingOf, plainFinding, type Finding } from './readiness-check.js';

/** What a readiness check found. */
export interface Readiness {
  /** False until the first check has finished. */
  readonly checked: boolean;
  /** What stops the endpoints from answering: not ready while there is any. */
  readonly reasons: readonly Finding[];
  /** What the endpoints do without (a best-effort store): still ready. */
  readonly degraded: readonly Finding[];
}

export interface ReadinessMonitor {
  /** The last check's finding, at once: never waits on a store. */
  current(): Readiness;
  /** Settles when the first check has finished. */
  readonly firstCheck: Promise<void>;
  /** No check after the one in progress. */
  stop(): void;
}

/** Before any check has finished nothing is known, and an unknown instance is not ready. */
export const NOT_CHECKED: Readiness = { checked: false, reasons: [plainFinding('not checked yet')], degraded: [] };

/**
 * Runs `check` now and again `everyMs` after each one finishes (one at a time), keeping what it
 * found, so a probe answers from the last finding instead of waiting on the stores. Its timer does
 * not keep the process alive. `check` bounds its own time (each store's check has a time limit).
 */
export function readinessMonitor(check: () => Promise<Omit<Readiness, 'checked'>>, everyMs: number): ReadinessMonitor {
  let last = NOT_CHECKED;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = async (): Promise<void> => {
    try {
      last = { checked: true, ...(await check()) };
    } catch (error) {
      last = { checked: true, reasons: [findingOf(error)], degraded: [] };
    }
    if (!stopped) timer = setTimeout(() => void run(), everyMs).unref();
  };

  return {
    current: () => last,
    firstCheck: run(),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
