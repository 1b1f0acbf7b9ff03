/** One audit entry: who changed what, and when. */
export interface ActivityEntry {
  readonly createdAt: Date;
  readonly module: string;
  readonly eventKey: string;
  readonly description: string;
  readonly entityType: string;
  /** PHP's `(int)` of the id the caller sent: a 64-bit integer. */
  readonly entityId: bigint;
  /** Stored as JSON text, or NULL. */
  readonly details: Readonly<Record<string, unknown>> | null;
  readonly userId: string;
  readonly requestId?: string | undefined;
  readonly clientIp?: string | undefined;
  readonly userAgent?: string | undefined;
}

/** The audit trail. Best effort: recording never blocks, never throws, never changes a response. */
export interface ActivityLog {
  /**
   * Accepts an entry for writing; the write to the store happens later. A log that first keeps the
   * entry where a crash of the process cannot lose it returns a promise, settled (never rejected)
   * once it is kept there, within the turn: the answer waits for it.
   */
  record(entry: ActivityEntry): void | Promise<void>;
  /** Resolves once every entry recorded so far has been written or given up on. */
  flush(): Promise<void>;
}
