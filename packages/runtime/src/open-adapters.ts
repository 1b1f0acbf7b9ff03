import { mkdirSync } from 'node:fs';
import type { UseCaseDeps } from '@cotizaciones/core';
import { openActivityLog, type BufferedActivityLog, type ReadableActivityLogStore } from '@cotizaciones/adapters';
import { reportSpoolTakeOver } from './spool-take-over-report.js';
import { reportActivityProblem } from './activity-problems.js';
import { describeUpstream, openTokenSource, openUpstream } from './open-upstream.js';
import { failedChecks, readinessCheck, type Finding } from './readiness-check.js';
import { tracedTokens } from './traced-tokens.js';
import { tracedUpstream } from './traced-upstream.js';
import type { Log } from './redacting-log.js';
import type { RuntimeConfig } from './runtime-config.js';

/** The adapters a configuration names, opened. */
export interface Adapters {
  /** What the use cases are built on: the upstream, the token source and the activity log. */
  readonly deps: UseCaseDeps & { readonly activityLog: BufferedActivityLog };
  readonly activityStore: ReadableActivityLogStore;
  /** Which adapter backs each port, for the start-up line; no secret. */
  readonly description: Readonly<Record<string, string>>;
  /**
   * What the endpoints do without at the moment: the activity log, best effort, when its store does
   * not answer (its entries are kept until it does). Empty when nothing.
   */
  degraded(): Promise<Finding[]>;
  /** Writes pending activity entries (within `timeoutMs`) and closes every connection. */
  close(timeoutMs: number): Promise<void>;
}

export interface OpenAdaptersOptions {
  /** Called before audit entries leave the log's queue (the CLI writes out its journal). */
  readonly beforeActivityWrite?: () => void;
  /**
   * A channel that runs until stopped (the server) keeps what it could not write at its stop in the
   * spool, and takes over what stopped processes left there. A channel that ends (the CLI) sets what
   * it could not write aside in the dead-letter file, and leaves other processes' segments alone (its
   * journal recovers its own killed runs; the next server start forwards their segments).
   */
  readonly channel?: 'service' | 'batch';
}

/**
 * Opens each adapter the configuration names. Adapters with heavy clients are imported only when
 * chosen, so a process carries only the libraries it uses. Stores that are down at start-up are
 * connected to later: {@link Adapters.degraded} says so meanwhile.
 */
export async function openAdapters(config: RuntimeConfig, log: Log, options: OpenAdaptersOptions = {}): Promise<Adapters> {
  if (config.upstreamBaseUrl === undefined) log.warn('UPSTREAM_BASE_URL is unset: using the built-in demo upstream');
  const client = await openUpstream(config);
  const upstream = config.tracing.enabled ? tracedUpstream(client, config.upstreamBaseUrl) : client;
  const source = await openTokenSource(config);
  // A static token is no fetch: nothing to see in a trace.
  const tokens = config.tracing.enabled && config.tokenSource.kind !== 'static' ? tracedTokens(source, config.tokenSource.kind) : source;

  // Owner only, like the files in it: audit rows, user ids, client IPs.
  if (config.dataFolder) mkdirSync(config.dataFolder, { recursive: true, mode: 0o700 });
  const activity = openActivityLog(config.activityLogUrl, {
    table: config.activityLogTable,
    deadLetterFile: config.activityLogDeadLetter,
    deadLetterMaxBytes: config.activityLogDeadLetterMaxBytes,
    spool: config.activityLogSpool,
    spoolMaxBytes: config.activityLogSpoolMaxBytes,
    adoptSpool: options.channel !== 'batch',
    unwrittenAtClose: options.channel === 'batch' ? 'dead-letter' : 'spool',
    maxQueue: config.activityLogQueueMax,
    traced: config.tracing.enabled,
    beforeWrite: options.beforeActivityWrite,
    onProblem: (problem) => reportActivityProblem(log, problem),
    onSpoolTakeOver: (report) => reportSpoolTakeOver(log, report),
    onConnectionError: (error) => log.warn({ err: error }, 'activity log connection lost'),
  });

  return {
    deps: { upstream, tokens, activityLog: activity.log },
    activityStore: activity.store,
    description: {
      upstream: describeUpstream(config),
      activityLog: activity.engine,
      upstreamToken: config.tokenSource.kind,
    },
    degraded: () => failedChecks([readinessCheck(activity.store.ping(), 1_000, 'activity log')]),
    async close(timeoutMs) {
      await activity.log.close(timeoutMs);
      upstream.close();
    },
  };
}
