import type { ActivityEntry } from '@cotizaciones/core';

/** An activity entry as JSON holds it: the dead-letter file's `entry`, the CLI journal's pending entries. */
export interface EntryRecord {
  readonly createdAt: string;
  readonly module: string;
  readonly eventKey: string;
  readonly description: string;
  readonly entityType: string;
  /** A 64-bit integer: text, as JSON numbers lose precision past 2^53. */
  readonly entityId: string;
  readonly details: Readonly<Record<string, unknown>> | null;
  readonly userId: string;
  readonly requestId: string | null;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
}

/** An entry record's keys, in the order {@link entryRecord} writes them. */
export const ENTRY_RECORD_KEYS = [
  'createdAt',
  'module',
  'eventKey',
  'description',
  'entityType',
  'entityId',
  'details',
  'userId',
  'requestId',
  'clientIp',
  'userAgent',
] as const satisfies ReadonlyArray<keyof EntryRecord>;

export function entryRecord(entry: ActivityEntry): EntryRecord {
  return {
    createdAt: entry.createdAt.toISOString(),
    module: entry.module,
    eventKey: entry.eventKey,
    description: entry.description,
    entityType: entry.entityType,
    entityId: entry.entityId.toString(),
    // A copy: what is done to the record (a value cut to fit) must not change the entry itself.
    details: entry.details === null ? null : { ...entry.details },
    userId: entry.userId,
    requestId: entry.requestId ?? null,
    clientIp: entry.clientIp ?? null,
    userAgent: entry.userAgent ?? null,
  };
}

/** The entry a parsed record holds, or undefined when the value is not one. */
export function entryOfRecord(value: unknown): ActivityEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const e = value as Record<string, unknown>;
  const text = (field: unknown) => typeof field === 'string';
  const optional = (field: unknown) => field === null || field === undefined || typeof field === 'string';
  const createdAt = typeof e.createdAt === 'string' ? new Date(e.createdAt) : undefined;
  const valid =
    createdAt !== undefined &&
    !Number.isNaN(createdAt.getTime()) &&
    [e.module, e.eventKey, e.description, e.entityType, e.userId].every(text) &&
    typeof e.entityId === 'string' &&
    /^-?\d{1,20}$/.test(e.entityId) &&
    (e.details === null || (typeof e.details === 'object' && !Array.isArray(e.details))) &&
    [e.requestId, e.clientIp, e.userAgent].every(optional);
  if (!valid) return undefined;
  return {
    createdAt,
    module: e.module as string,
    eventKey: e.eventKey as string,
    description: e.description as string,
    entityType: e.entityType as string,
    entityId: BigInt(e.entityId as string),
    details: e.details as Readonly<Record<string, unknown>> | null,
    userId: e.userId as string,
    requestId: (e.requestId as string | null | undefined) ?? undefined,
    clientIp: (e.clientIp as string | null | undefined) ?? undefined,
    userAgent: (e.userAgent as string | null | undefined) ?? undefined,
  };
}
