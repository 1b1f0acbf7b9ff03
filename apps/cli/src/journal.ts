import { existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { ActivityEntry } from '@cotizaciones/core';
import { entryOfRecord, entryRecord } from '@cotizaciones/adapters';
import { batchedFile } from './batched-file.js';
import type { ChangeLine } from './change-line.js';
import { lineKey, occurrenceCounter } from './line-identity.js';
import { UsageError } from './usage-error.js';

/**
 * Which lines of a file were applied, so that a rerun skips them, and which of their audit entries
 * may not be in the activity log yet, so that a rerun writes them.
 */
export interface Journal {
  /** The run this journal belongs to: every rerun with it goes on with the same run id (and idempotency keys). */
  readonly runId: string;
  /** Audit entries of applied lines that an earlier run did not see written (it was killed), oldest first. */
  readonly pending: readonly ActivityEntry[];
  /** How many lines the journal holds, earlier runs' included. */
  readonly recorded: number;
  /** How many of them an earlier version of the tool recorded by line number (read by content here). */
  readonly byLineNumber: number;
  /** The line number a line with this identity (content and occurrence) had when it was applied; undefined if it was not. */
  appliedAt(line: ChangeLine): number | undefined;
  /**
   * An applied line, with the audit entry it is waiting on if any. Written in batches (at most 100 ms
   * old): a kill -9 may lose the last batch, whose lines a rerun sends again with the same
   * idempotency keys. Their entries are not stored yet: the activity log calls `flush` first.
   */
  record(line: ChangeLine, entry?: ActivityEntry): void;
  /** The audit entries of the first `count` lines are written or set aside: a rerun need not check them. */
  audited(count: number): void;
  /** Writes out what is batched. */
  flush(): void;
  close(): void;
}

const TARGET = '# applied to ';
const RUN = '# run ';
const AUDITED = '# audited ';
/** The first field of an earlier version's record: a line number, where a record's key is `<hash>:<occurrence>`. */
const LINE_NUMBER = /^\d+$/;

/**
 * Opens (or starts) the journal of runs against `target` (the upstream the changes go to). A
 * journal written for another target is refused: lines applied on staging are not applied on
 * production. A new journal keeps `newRunId`; an existing one, the run id it was started with.
 *
 * One text line per applied line: `<hash>:<occurrence>\t<line number>`, then `\t<entry as JSON>`
 * while its audit entry is pending; `# audited <n>` says the entries of the first n lines are written
 * or set aside. A line is known by its identity (line-identity.ts), its number only said.
 *
 * An earlier version wrote `<line number>\t<hash>`: such a record is read as the next occurrence of
 * its content, so the lines it names are skipped wherever they are in the file now. Records are
 * only appended, so those come first and read the same on every run.
 */
export function openJournal(path: string, target: string, newRunId: string): Journal {
  const header = `${TARGET}${target}`;
  const [first, ...rest] = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
  if (first !== undefined && first !== header) {
    throw new UsageError(`${path} records a run against ${first.replace(TARGET, '')}, not ${target}: pass --journal <another file>`);
  }
  let kept: string | undefined;
  let auditedUpTo = 0;
  const applied = new Map<string, number>();
  const entries: Array<ActivityEntry | undefined> = [];
  const occurrenceOf = occurrenceCounter();
  let byLineNumber = 0;
  for (const text of rest) {
    if (text.startsWith(RUN)) kept = text.slice(RUN.length);
    else if (text.startsWith(AUDITED)) auditedUpTo = Math.max(auditedUpTo, Number(text.slice(AUDITED.length)) || 0);
    else if (!text.startsWith('#')) {
      const [head = '', next = '', json] = text.split('\t');
      if (LINE_NUMBER.test(head)) {
        byLineNumber += 1;
        applied.set(lineKey({ hash: next, occurrence: occurrenceOf(next) }), Number(head));
      } else {
        applied.set(head, Number(next));
      }
      entries.push(json === undefined ? undefined : entryOfJson(json));
    }
  }
  // Owner only: it holds the pending audit entries (user ids, client IPs).
  const fd = openSync(path, 'a', 0o600);
  if (first === undefined) writeSync(fd, `${header}\n`);
  const runId = kept ?? newRunId;
  if (kept === undefined) writeSync(fd, `${RUN}${runId}\n`);
  let recorded = entries.length;
  const file = batchedFile(fd);
  return {
    runId,
    pending: entries.slice(auditedUpTo).filter((entry) => entry !== undefined),
    get recorded() {
      return recorded;
    },
    byLineNumber,
    appliedAt: (line) => applied.get(lineKey(line)),
    record(line, entry) {
      file.append(`${lineKey(line)}\t${line.line}${entry ? `\t${JSON.stringify(entryRecord(entry))}` : ''}\n`);
      recorded += 1;
    },
    audited(count) {
      if (count <= auditedUpTo) return;
      auditedUpTo = count;
      file.append(`${AUDITED}${count}\n`);
    },
    flush: () => file.flush(),
    close: () => file.close(),
  };
}

function entryOfJson(json: string): ActivityEntry | undefined {
  try {
    return entryOfRecord(JSON.parse(json));
  } catch {
    return undefined;
  }
}
