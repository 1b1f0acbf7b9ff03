/** One row of the bench's fair-share table: a newcomer's request beside what the other clients do. */
export interface FairShareRow {
  /** What the other clients do. */
  readonly beside: string;
  /** The newcomer's request. */
  readonly probe: string;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}
