import type { ActivityEntry } from '@cotizaciones/core';
import type { DeadLetter } from './dead-letter-file.js';
import { deadLetterLine, type Refusal } from './dead-letter-line.js';
import type { Clock } from './clock.js';

/** What became of an entry set aside. */
export type SetAsideOutcome = 'kept' | 'dropped' | 'logged';

export interface DeadLetterCounts {
  /** Entries the store refused, kept in the dead-letter file. */
  deadLettered: number;
  /** Entries the store could not take in time, kept in the dead-letter file. */
  spilled: number;
  /** Entries the dead-letter file could not take (an error): each written whole to stderr instead. */
  deadLetterFailed: number;
  /** Entries not kept because the dead-letter file was at its bound. */
  deadLetterDropped: number;
  /** Entries written whole to stderr, as one dead-letter line each (nothing else could take them). */
  logged: number;
}

export interface DeadLetterRouterOptions {
  readonly deadLetter: DeadLetter | undefined;
  readonly clock: Clock;
  /** The line of an entry nothing else could take; default: the process's stderr. */
  readonly stderr?: ((line: string) => void) | undefined;
  readonly onFailed: (error: unknown, entry: ActivityEntry, failed: number) => void;
  /** At most once a minute while it goes on. */
  readonly onFull: (dropped: number) => void;
}

/**
 * Where entries the store does not take go: the dead-letter file, or — when the file cannot take
 * them (a full disk) — stderr, whole, as the file's own line, which `replay-dead-letter --from-log`
 * reads back. Nothing is dropped silently: only the file's bound drops, counted and reported.
 */
export function deadLetterRouter(options: DeadLetterRouterOptions) {
  const { deadLetter, clock } = options;
  const stderr = options.stderr ?? ((line: string) => void process.stderr.write(line));
  const counts: DeadLetterCounts = { deadLettered: 0, spilled: 0, deadLetterFailed: 0, deadLetterDropped: 0, logged: 0 };
  const pending = new Set<Promise<unknown>>();
  let lastFullReport = -Infinity;

  const toStderr = (entry: ActivityEntry, refusal: Refusal): 'logged' => {
    counts.logged += 1;
    // The dead-letter file's own line (and bound): what `replay-dead-letter --from-log` reads back.
    stderr(deadLetterLine(entry, refusal, new Date(clock.now())));
    return 'logged';
  };

  return {
    counts,
    /**
     * Sets `entry` aside. `refused`: the store refused it (counted as dead-lettered), otherwise it
     * could not be written in time (spilled). `bounded: false` for the only copy a closing channel has.
     */
    setAside(entry: ActivityEntry, refusal: Refusal, how: { refused: boolean; bounded: boolean }): Promise<SetAsideOutcome> {
      if (!deadLetter) {
        counts.deadLetterFailed += 1;
        options.onFailed(new Error('no dead-letter file configured'), entry, counts.deadLetterFailed);
        return Promise.resolve(toStderr(entry, refusal));
      }
      const appending = deadLetter.append(entry, refusal, { bounded: how.bounded }).then(
        (kept): SetAsideOutcome => {
          if (kept) {
            if (how.refused) counts.deadLettered += 1;
            else counts.spilled += 1;
            return 'kept';
          }
          counts.deadLetterDropped += 1;
          const now = clock.now();
          if (now - lastFullReport >= 60_000) {
            lastFullReport = now;
            options.onFull(counts.deadLetterDropped);
          }
          return 'dropped';
        },
        (error: unknown) => {
          counts.deadLetterFailed += 1;
          options.onFailed(error, entry, counts.deadLetterFailed);
          return toStderr(entry, refusal);
        },
      );
      pending.add(appending);
      void appending.finally(() => pending.delete(appending));
      return appending;
    },
    /** Resolves once every entry handed over so far has been set aside. */
    settled: () => Promise.all([...pending]).then(() => undefined),
  };
}

export type DeadLetterRouter = ReturnType<typeof deadLetterRouter>;
