import type { ActivityLogStore } from './activity-log-store.js';
import type { ActivityQueue, QueuedEntry } from './activity-queue.js';
import type { ActivitySpool } from './activity-spool.js';
import type { ActivityWriter } from './activity-writer.js';
import type { Clock } from './clock.js';
import type { DeadLetter } from './dead-letter-file.js';
import type { Refusal } from './dead-letter-line.js';
import type { SetAsideOutcome } from './dead-letter-router.js';
import type { LogCounts, ProblemReporter } from './activity-log-stats.js';

/** What the close works on: the activity log's parts. */
export interface Closable {
  readonly writer: ActivityWriter;
  readonly queue: ActivityQueue;
  readonly store: ActivityLogStore;
  readonly deadLetter: DeadLetter | undefined;
  readonly spool: ActivitySpool | undefined;
  readonly clock: Clock;
  /** What the close does with entries it could not write in time that the spool holds (see BufferedActivityLogOptions). */
  readonly unwrittenAtClose: 'spool' | 'dead-letter';
  readonly counts: LogCounts;
  readonly reporter: ProblemReporter;
  /** Resolves once the queue is written (or the writer stopped) and what was set aside is. */
  flush(): Promise<void>;
  /** Resolves once every entry set aside so far is out of the log's hands. */
  setAsideSettled(): Promise<void>;
  setAside(item: QueuedEntry, refusal: Refusal, how: { refused: boolean; bounded: boolean }): Promise<SetAsideOutcome>;
  /** Nothing new joins the spool or the queue from the spool. */
  stopTakingIn(): void;
}

/** How long a write under way at the close deadline may still land. */
const IN_FLIGHT_GRACE_MS = 1_000;

/**
 * The close: writes what is queued for at most `timeoutMs`; then the writer stops, and what is still
 * queued is set aside (or left in the spool for the next start), a write under way given a moment to
 * land; then the store, the dead-letter file and the spool are closed, and what was left is said once.
 */
export async function closeActivityLog(log: Closable, timeoutMs: number): Promise<void> {
  const { writer, queue, counts } = log;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([log.flush(), deadline]);
  clearTimeout(timer);
  log.stopTakingIn();
  writer.stop();
  let setAside = 0;
  let lost = 0;
  if (queue.length > 0) {
    // A write under way may still land: give it a moment; if it does not, its entries are neither written nor set aside (the spool keeps them).
    const { writing } = writer.inFlight();
    if (writing) await Promise.race([writing.catch(() => undefined), log.clock.sleep(IN_FLIGHT_GRACE_MS)]);
    const uncertain = new Set(writer.inFlight().entries);
    writer.releaseInFlight();
    const rest = queue.takeAll();
    lost = rest.filter((item) => uncertain.has(item) && !inSpool(item)).length;
    const toSetAside = rest.filter((item) => !uncertain.has(item) && (!inSpool(item) || log.unwrittenAtClose === 'dead-letter'));
    // The only copy a channel that exits has (or none at all): set aside whatever the file's bound.
    const outcomes = await Promise.all(
      toSetAside.map((item) =>
        log.setAside(
          item,
          { code: 'UNWRITTEN_AT_CLOSE', reason: 'the activity log closed while the store could not take entries' },
          { refused: false, bounded: false },
        ),
      ),
    );
    setAside = outcomes.filter((outcome) => outcome === 'kept').length;
  }
  await log.setAsideSettled();
  await log.store.close();
  // Lines being appended are finished, not cut: they are the only copy of their entries.
  await log.deadLetter?.close();
  counts.leftInSpool = log.spool?.close() ?? 0;
  if (setAside + lost + counts.leftInSpool > 0)
    log.reporter.report({ kind: 'unwritten-at-close', setAside, lost, leftInSpool: counts.leftInSpool });
}

/** Whether the spool holds the entry: its line was written (a disk error may have refused its batch's write). */
const inSpool = (item: QueuedEntry) => item.ticket !== undefined && !item.ticket.lost;
