import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ActivityEntry } from '@cotizaciones/core';
import type { Refusal } from './dead-letter-line.js';
import { createSegment, entryLine, type SpoolSegment } from './spool-segment.js';
import { NOTHING_SKIPPED, takeOverSegments, type SkippedNames } from './spool-take-over.js';
import { sortTakenOver, type HeldEntry } from './taken-over-entries.js';

/** Where an entry is in the spool: what acknowledges it. */
export interface SpoolTicket {
  readonly segment: SpoolSegment;
  readonly index: number;
  /** The entry's request id: what its acknowledgement names. */
  readonly requestId: string | undefined;
  /** Its line was not written (the disk refused its batch's write): the entry is held in memory only. */
  readonly lost: boolean;
}

/** What became of a batch's lines: written, or refused by the disk (ENOSPC, EIO…) with nothing of them left. */
export type SpoolWrite =
  { readonly kept: true; readonly entries: number } | { readonly kept: false; readonly error: unknown; readonly entries: number };

/** An entry taken over from a segment a stopped process left. */
export interface AdoptedEntry {
  readonly entry: ActivityEntry;
  readonly ticket: SpoolTicket;
}

export type SpoolAppend =
  /**
   * `bytes`: the entry's line, what the store's batch bound counts. `written`: settles once the line is
   * in the kernel, with every line of its batch (one promise for them all): what an answer waits for.
   */
  | { readonly ok: true; readonly ticket: SpoolTicket; readonly bytes: number; readonly written: Promise<SpoolWrite> }
  /** `full`: past the spool's bound; `failed`: the disk did not take it (ENOSPC, EIO…). */
  | { readonly ok: false; readonly reason: 'full' | 'failed'; readonly error?: unknown };

/**
 * The activity log's local spool (`ACTIVITY_LOG_SPOOL`): every entry is appended here before its
 * answer is sent, and leaves when acknowledged (stored, or set aside). Lines are written in batches
 * (group commit: one `write` a batch, and `written` settles then): while the loop is quiet, a batch is
 * written by a promise job its first append queues, so within the task that opened it (the event
 * loop's callback and its promise jobs), and its answers leave at once, never waiting for the rest of
 * the turn; after a busy turn (one of {@link BUSY_TURN_ENTRIES} entries or more), at the turn's end, so
 * that the answers of a saturated loop leave together (decision 047). `close` writes what is waiting
 * at once. Each process writes its own segment files (see {@link SpoolSegment}), locked for its
 * lifetime; at open it takes over the segments no live process holds and hands back their entries not
 * yet acknowledged.
 */
export interface ActivitySpool {
  append(entry: ActivityEntry): SpoolAppend;
  /** Done with these entries: a segment whose entries are all done is removed once it is no longer written to. */
  acknowledge(tickets: readonly SpoolTicket[]): void;
  /** The entries of the segments taken over at open, oldest first. */
  readonly adopted: readonly AdoptedEntry[];
  /** Lines of those segments that held no entry (a write cut short by a crash, a damaged region): skipped. */
  readonly unreadable: number;
  /** What else the take-over at open found: see {@link TakeOverReport}. */
  readonly takeOver: TakeOverReport;
  /** Bytes in the segments this process holds (its own and those it took over). */
  bytes(): number;
  /** Its bound (ACTIVITY_LOG_SPOOL_MAX_BYTES): past it entries are no longer spooled. */
  readonly maxBytes: number;
  /** Releases every segment: the done ones are removed, the others kept for the next process. How many entries they still hold. */
  close(): number;
}

/** What the take-over at open found besides the entries it hands back: for the log. */
export interface TakeOverReport {
  /** Names in the folder skipped (left as they are): not a regular file, not readable, or of an unknown format. */
  readonly skipped: SkippedNames;
  readonly skippedNames: readonly string[];
  /** Entries that fail the replay's checks (entry-checks): never written, set aside (or, without `setAside`, left in their segment). */
  readonly failedChecks: number;
  /** Entries the dead-letter file holds already (set aside before the stop, not yet acknowledged): the replay's to write, done here. */
  readonly alreadySetAside: number;
}

export interface SpoolOptions {
  /** The most bytes the segments this process holds may take; past it (at 0: always), entries are not spooled. */
  readonly maxBytes?: number;
  /** A segment is no longer written to past this size. */
  readonly segmentBytes?: number;
  /** Take over the segments no live process holds (default true). */
  readonly adopt?: boolean;
  /** How often what was appended is synced to the disk (fdatasync, in the thread pool); 0: never. */
  readonly syncIntervalMs?: number;
  /** The dead-letter file: a taken-over entry it holds (by request id) is done, not forwarded. */
  readonly deadLetterFile?: string | undefined;
  /** Where taken-over entries that fail the checks go; each is acknowledged once this resolves. */
  readonly setAside?: ((entry: ActivityEntry, refusal: Refusal) => Promise<unknown>) | undefined;
}

/** ACTIVITY_LOG_SPOOL_MAX_BYTES's default. */
export const SPOOL_MAX_BYTES = 256 * 1024 * 1024;
const SEGMENT_BYTES = 8 * 1024 * 1024;
/** A turn that appended this many entries marks the loop as busy: the next turn's lines are written at its end (decision 047). */
const BUSY_TURN_ENTRIES = 4;
/** A power loss loses at most this much of what was answered; a crash of the process loses nothing. */
const SYNC_INTERVAL_MS = 200;
const SUFFIX = '.spool';

/** Opens the spool in `dir` (created if missing; its parent must exist). */
export function openSpool(dir: string, options: SpoolOptions = {}): ActivitySpool {
  const maxBytes = options.maxBytes ?? SPOOL_MAX_BYTES;
  const segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const held: SpoolSegment[] = [];
  const adopted: AdoptedEntry[] = [];
  const failing: Array<AdoptedEntry & { readonly reason: string }> = [];
  let unreadable = 0;
  let takeOver: TakeOverReport = { skipped: NOTHING_SKIPPED, skippedNames: [], failedChecks: 0, alreadySetAside: 0 };
  if (options.adopt ?? true) {
    const taken = takeOverSegments(dir);
    unreadable = taken.unreadable;
    const sorted = sortTakenOver(taken.segments, options.deadLetterFile);
    held.push(...sorted.held);
    const ticket = ({ segment, index, entry }: HeldEntry): SpoolTicket => ({ segment, index, requestId: entry.requestId, lost: false });
    for (const kept of sorted.forward) adopted.push({ entry: kept.entry, ticket: ticket(kept) });
    for (const kept of sorted.failing) failing.push({ entry: kept.entry, ticket: ticket(kept), reason: kept.reason });
    takeOver = {
      skipped: taken.skipped,
      skippedNames: taken.skippedNames,
      failedChecks: failing.length,
      alreadySetAside: sorted.alreadySetAside,
    };
  }
  let active: SpoolSegment | undefined;
  let batch: Batch | undefined;
  /** Entries appended in the turn under way (0: none yet, its end not scheduled), and in the last one that had any. */
  let turnEntries = 0;
  let lastTurnEntries = 0;
  const syncIntervalMs = options.syncIntervalMs ?? SYNC_INTERVAL_MS;
  const syncing = syncIntervalMs > 0 ? setInterval(() => active?.sync(), syncIntervalMs).unref() : undefined;
  const heldBytes = () => held.reduce((sum, segment) => sum + segment.bytes, 0);
  const retire = (segment: SpoolSegment) => {
    segment.remove();
    held.splice(held.indexOf(segment), 1);
  };
  const room = () => maxBytes - heldBytes() - (batch?.bytes ?? 0);
  /**
   * Removes the segment being written to when every entry in it is done and nothing waits to be
   * written to it: under a bound below `segmentBytes` it would never fill to leave, and its bytes would
   * keep the spool full. True when removed.
   */
  const retireIdle = (): boolean => {
    const idle = active;
    if (!idle || batch || idle.pending > 0) return false;
    active = undefined;
    try {
      retire(idle);
      return true;
    } catch {
      return false;
    }
  };
  const endTurn = () => {
    lastTurnEntries = turnEntries;
    turnEntries = 0;
  };
  /**
   * Writes the batch's lines in one go; a failed write leaves none of them (the segment keeps ending with a whole line).
   * `--spool-tail-probe` times it by its name.
   */
  const write = () => {
    const current = batch;
    if (!current) return;
    batch = undefined;
    for (const ticket of current.tickets) ticket.unwritten = false;
    let result: SpoolWrite = { kept: true, entries: current.tickets.length };
    try {
      current.segment.append(current.lines.join(''), current.tickets.length);
    } catch (error) {
      for (const ticket of current.tickets) ticket.lost = true;
      result = { kept: false, error, entries: current.tickets.length };
    }
    current.settle(result);
    const early = current.tickets.filter((ticket) => ticket.acknowledged && !ticket.lost);
    if (early.length > 0) self.acknowledge(early);
  };

  const self: ActivitySpool = {
    adopted,
    unreadable,
    takeOver,
    bytes: heldBytes,
    maxBytes,
    append(entry) {
      // No line fits (a bound of 0 spools nothing): not even built.
      if (room() <= 0 && !retireIdle()) return { ok: false, reason: 'full' };
      const line = entryLine(entry);
      const bytes = Buffer.byteLength(line);
      if (bytes > room() && !(retireIdle() && bytes <= room())) return { ok: false, reason: 'full' };
      try {
        if (!active || active.bytes + (batch?.bytes ?? 0) >= segmentBytes) {
          write();
          const previous = active;
          active = createSegment(join(dir, segmentName()));
          held.push(active);
          previous?.sync();
          if (previous && previous.commit()) retire(previous);
        }
      } catch (error) {
        return { ok: false, reason: 'failed', error };
      }
      if (turnEntries === 0) setImmediate(endTurn);
      turnEntries += 1;
      if (!batch) {
        let settle!: (result: SpoolWrite) => void;
        const written = new Promise<SpoolWrite>((resolve) => (settle = resolve));
        batch = { segment: active, lines: [], tickets: [], bytes: 0, written, settle };
        // A busy loop's answers wait for the turn's end together; a quiet one's leave with their task.
        if (lastTurnEntries < BUSY_TURN_ENTRIES) queueMicrotask(write);
        else setImmediate(write);
      }
      const ticket: BatchTicket = {
        segment: active,
        index: active.entries + batch.tickets.length,
        requestId: entry.requestId,
        lost: false,
        unwritten: true,
        acknowledged: false,
      };
      batch.lines.push(line);
      batch.tickets.push(ticket);
      batch.bytes += bytes;
      return { ok: true, ticket, bytes, written: batch.written };
    },
    acknowledge(tickets) {
      const touched = new Set<SpoolSegment>();
      for (const ticket of tickets) {
        if (ticket.lost) continue;
        // Not written yet (an entry dropped before its batch was written): acknowledged once it is.
        if ((ticket as Partial<BatchTicket>).unwritten === true) {
          (ticket as BatchTicket).acknowledged = true;
          continue;
        }
        ticket.segment.acknowledge(ticket.index, ticket.requestId);
        touched.add(ticket.segment);
      }
      for (const segment of touched) {
        // The segment being written to stays (and keeps its name) until it is full.
        if (segment.commit() && segment !== active && held.includes(segment)) retire(segment);
      }
    },
    close() {
      write();
      clearInterval(syncing);
      let left = 0;
      for (const segment of held.splice(0)) {
        left += segment.pending;
        if (segment.commit()) segment.remove();
        else segment.release();
      }
      active = undefined;
      return left;
    },
  };
  // What fails the checks is never written: set aside as the replay keeps it, and done once kept.
  const setAsideFailing = options.setAside;
  if (setAsideFailing)
    for (const { entry, ticket, reason } of failing)
      void setAsideFailing(entry, { code: 'FAILED_CHECKS', reason }).then(
        () => self.acknowledge([ticket]),
        // Not kept (a disk error): it stays in its segment for the next start.
        () => undefined,
      );
  return self;
}

interface BatchTicket {
  readonly segment: SpoolSegment;
  readonly index: number;
  readonly requestId: string | undefined;
  lost: boolean;
  /** In the batch, its line not written yet. */
  unwritten: boolean;
  /** Acknowledged before its line was written. */
  acknowledged: boolean;
}

/** The lines appended since the batch opened, for the active segment, written together by one `write`. */
interface Batch {
  readonly segment: SpoolSegment;
  readonly lines: string[];
  readonly tickets: BatchTicket[];
  bytes: number;
  readonly written: Promise<SpoolWrite>;
  readonly settle: (result: SpoolWrite) => void;
}

/** Sortable by creation time; unique without the pid (two containers may both run as pid 1). */
function segmentName(): string {
  return `${Date.now().toString().padStart(15, '0')}-${randomBytes(6).toString('hex')}${SUFFIX}`;
}
