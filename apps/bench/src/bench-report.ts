import type { FloodRow } from './fair-share-bench.js';
import type { FairShareRow } from './fair-share-row.js';
import type { PhpSessionLatency } from './php-session-bench.js';
import type { ServiceSetting, Target } from './targets.js';
import type { CliSummary } from './cli-bench.js';
import type { TracingOffCost } from './tracing-off-cost.js';
import type { WriterResult } from './writer-bench.js';
import type { SpoolTailRow } from './spool-tail-bench.js';

/** What one bench run measured: the shape \`report.ts\` writes and \`target-checks.ts\` judges. */
export interface TargetSummary {
  readonly target: string;
  readonly role: Target['role'];
  /** A service target's setting, without its stores' URLs (which may hold passwords). */
  readonly setting: ServiceTag | undefined;
  readonly delayMs: number;
  readonly rounds: number;
  readonly rps: number;
  readonly ratio: number;
  /** × the Fastify reference, measured in the same rounds. */
  readonly referenceRatio: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly cpuMsPer1000: number;
  readonly peakRssMb: number;
  readonly requests: number;
  readonly problems: string[];
}

export interface ServiceTag {
  readonly client: ServiceSetting['client'];
  readonly stores: ServiceSetting['stores']['kind'];
  readonly traced: boolean;
  readonly candidate: boolean;
  readonly spoolOff: boolean;
}

export const serviceTag = (setting: ServiceSetting | undefined): ServiceTag | undefined =>
  setting && {
    client: setting.client,
    stores: setting.stores.kind,
    traced: setting.traced === true,
    candidate: setting.candidate === true,
    spoolOff: setting.spoolOff === true,
  };

export interface PeakMemory {
  readonly target: string;
  readonly connections: number;
  readonly peakRssMb: number;
  readonly rps: number;
  /** The slowest answer, ms: the connections are all opened at once. */
  readonly maxMs: number;
  readonly cpuMsPer1000: number;
  readonly problems: string[];
}

export interface SoakResult {
  readonly target: string;
  readonly seconds: number;
  readonly rate: number;
  readonly requests: number;
  readonly rssAfterWarmupMb: number;
  readonly rssAtEndMb: number;
  readonly growthMb: number;
  readonly problems: string[];
}

export interface BenchReport {
  readonly when: string;
  readonly machine: string;
  readonly settings: Record<string, unknown>;
  readonly targets: TargetSummary[];
  readonly peakMemory: PeakMemory[];
  readonly soak: SoakResult | undefined;
  readonly writer: WriterResult[];
  readonly phpSessions: PhpSessionLatency | undefined;
  readonly fairShare: { rows: FairShareRow[]; flood: FloodRow } | undefined;
  readonly tracingOff: TracingOffCost;
  /** One summary per client, got (the default) first. */
  readonly cli: readonly CliSummary[] | undefined;
  /** The spool on and off at one fixed rate, per upstream delay (`--spool-tail-rounds 0`: none). */
  readonly spoolTail: readonly SpoolTailRow[];
}
