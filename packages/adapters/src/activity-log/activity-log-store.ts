import type { ActivityEntry } from '@cotizaciones/core';
import type { SqlEngine } from './activity-log-url.js';
import type { ActivityStoreError } from './activity-store-error.js';

/** Where activity entries end up. Writes are batches: one round trip per batch. */
export interface ActivityLogStore {
  write(entries: readonly ActivityEntry[]): Promise<void>;
  /**
   * The most bytes (entry lines, as the spool counts them) one write should carry, when the store has
   * a limit of its own on a statement (MySQL's max_allowed_packet); undefined otherwise or not yet known.
   */
  maxBatchBytes?(): number | undefined;
  /** Why this entry cannot be stored as it is, checked in memory against the table's column limits; undefined if it fits. */
  refusalOf?(entry: ActivityEntry): ActivityStoreError | undefined;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A stored entry as read back, with the contract's column names. */
export interface StoredActivity {
  readonly created_at: string;
  readonly module: string;
  readonly event_key: string;
  readonly description: string;
  readonly entity_type: string;
  readonly entity_id: string;
  readonly details: string | null;
  readonly user_id: string;
  readonly request_id: string | null;
  readonly client_ip: string | null;
  readonly user_agent: string | null;
}

/** A store that can also show what it holds (tests, the dev routes). */
export interface ReadableActivityLogStore extends ActivityLogStore {
  /** The newest entries first. */
  recent(limit: number): Promise<StoredActivity[]>;
  /**
   * Which of these request ids a stored entry carries: a rerun of the bulk CLI asks before writing
   * again an entry a killed run may or may not have written. Not indexed: for a few ids at a time.
   */
  storedRequestIds(requestIds: readonly string[]): Promise<Set<string>>;
}

/** A store in a SQL database (SQLite, PostgreSQL, MySQL/MariaDB): which engine, which table. */
export interface SqlActivityLogStore extends ReadableActivityLogStore {
  readonly engine: SqlEngine;
  readonly table: string;
}

/** How to open a SQL store. */
export interface SqlStoreOptions {
  readonly table?: string | undefined;
  /** Told when a pooled connection fails outside a query (the server went away). */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
}

/** The row an entry becomes, before engine-specific value conversion. */
export function toStoredActivity(entry: ActivityEntry): StoredActivity {
  return {
    created_at: entry.createdAt.toISOString(),
    module: entry.module,
    event_key: entry.eventKey,
    description: entry.description,
    entity_type: entry.entityType,
    entity_id: entry.entityId.toString(),
    details: entry.details === null ? null : JSON.stringify(entry.details),
    user_id: entry.userId,
    request_id: entry.requestId ?? null,
    client_ip: entry.clientIp ?? null,
    user_agent: entry.userAgent ?? null,
  };
}
