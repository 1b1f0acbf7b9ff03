import { entryCheckFailure } from './entry-checks.js';
import { setAsideIds } from './set-aside-ids.js';
import type { SpooledEntry } from './spool-format.js';
import type { SpoolSegment } from './spool-segment.js';
import type { TakenSegment } from './spool-take-over.js';

/** A taken-over entry, with the segment that holds it. */
export type HeldEntry = SpooledEntry & { readonly segment: SpoolSegment };

export interface SortedEntries {
  /** To be forwarded to the store, oldest first. */
  readonly forward: HeldEntry[];
  /** Failing the replay's checks (`reason`): never written. */
  readonly failing: Array<HeldEntry & { readonly reason: string }>;
  /** Held by the dead-letter file already: acknowledged here, the replay's to write. */
  readonly alreadySetAside: number;
  /** The segments still holding entries not done (the others are removed). */
  readonly held: SpoolSegment[];
}

/**
 * Sorts the entries of the segments taken over: those the dead-letter file at `deadLetterFile`
 * holds (by request id: set aside before the process died, not yet acknowledged) are acknowledged,
 * so a start and a replay never both write them; those failing the replay's checks are kept apart;
 * the others are forwarded.
 */
export function sortTakenOver(segments: readonly TakenSegment[], deadLetterFile: string | undefined): SortedEntries {
  const ids = new Set(segments.flatMap(({ pending }) => pending.flatMap(({ entry }) => entry.requestId ?? [])));
  const setAside = deadLetterFile === undefined ? new Set<string>() : setAsideIds(deadLetterFile, ids);
  const forward: SortedEntries['forward'] = [];
  const failing: SortedEntries['failing'] = [];
  const held: SpoolSegment[] = [];
  let alreadySetAside = 0;
  for (const { segment, pending } of segments) {
    for (const { entry, index } of pending) {
      const reason = entryCheckFailure(entry);
      if (entry.requestId !== undefined && setAside.has(entry.requestId)) {
        segment.acknowledge(index, entry.requestId);
        alreadySetAside += 1;
      } else if (reason !== undefined) failing.push({ entry, index, segment, reason });
      else forward.push({ entry, index, segment });
    }
    if (segment.commit()) segment.remove();
    else held.push(segment);
  }
  return { forward, failing, alreadySetAside, held };
}
