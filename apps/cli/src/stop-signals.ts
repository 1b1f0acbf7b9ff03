import { onStopSignals } from '@cotizaciones/runtime';
import type { OpenRun } from './open-run.js';

/**
 * Ctrl-C (or SIGTERM) once: no new line starts, the lines in flight finish, the audit entries are
 * written. Twice: the process ends now, what is queued written where it can be within 2 s.
 */
export function onApplyStop(run: OpenRun, stop: AbortController): void {
  onStopSignals(
    (signal) => {
      process.stderr.write(`\n${signal}: no new line starts; finishing the lines in flight and writing the audit entries\n${run.resume}\n`);
      stop.abort();
    },
    (signal) => {
      process.stderr.write(
        `\n${signal} again: stopping now; lines in flight may or may not be applied (a rerun sends them again, with the same idempotency keys)\n${run.resume}\n`,
      );
      // Audit entries still queued go to the dead-letter file rather than being lost.
      void Promise.race([
        Promise.all([run.adapters?.close(0), run.tracing?.shutdown(1_000)]),
        new Promise((resolve) => setTimeout(resolve, 2_000)),
      ]).finally(() => {
        run.marks?.finish();
        try {
          run.journal?.flush();
          run.results.flush();
        } finally {
          process.exit(1);
        }
      });
    },
  );
}
