import type { ActivityEntry } from '@cotizaciones/core';

/** Why the store refused an entry, as the dead-letter file keeps it. */
export interface Refusal {
  readonly code: string;
  readonly reason: string;
}

/** One line of the dead-letter file: the whole entry, and when and why it was refused. */
interface DeadLetterRecord {
  readonly refusedAt: string;
  readonly code: string;
  readonly reason: string;
  readonly entry: {
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
  };
}

/** The JSON line (with its newline) that sets `entry` aside. */
export function deadLetterLine(entry: ActivityEntry, refusal: Refusal, refusedAt: Date): string {
  const record: DeadLetterRecord = {
    refusedAt: refusedAt.toISOString(),
    code: refusal.code,
    reason: refusal.reason,
    entry: {
      createdAt: entry.createdAt.toISOString(),
      module: entry.module,
      eventKey: entry.eventKey,
      description: entry.description,
      entityType: entry.entityType,
      entityId: entry.entityId.toString(),
      details: entry.details,
      userId: entry.userId,
      requestId: entry.requestId ?? null,
      clientIp: entry.clientIp ?? null,
      userAgent: entry.userAgent ?? null,
    },
  };
  return `${JSON.stringify(record)}\n`;
}

/** The entry a dead-letter line holds, or undefined when the line is not one. */
export function entryOfDeadLetterLine(line: string): ActivityEntry | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  const entry = typeof record === 'object' && record !== null && 'entry' in record ? record.entry : undefined;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Record<string, unknown>;
  const text = (value: unknown) => typeof value === 'string';
  const optional = (value: unknown) => value === null || value === undefined || typeof value === 'string';
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
