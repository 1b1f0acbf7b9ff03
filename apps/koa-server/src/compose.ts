import type Koa from 'koa';
import { OPERATIONS, useCases } from '@cotizaciones/core';
import type { BufferedActivityLog, ReadableActivityLogStore } from '@cotizaciones/adapters';
import {
  failedChecks,
  openAdapters,
  openSessionStore,
  openTracing,
  plainFinding,
  readinessCheck,
  readinessMonitor,
  type Log,
  type Readiness,
} from '@cotizaciones/runtime';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createMetrics, measuredUpstream } from './metrics.js';
import { upstreamWithCutoff } from './upstream-cutoff.js';

export interface Service {
  readonly app: Koa;
  readonly activityLog: BufferedActivityLog;
  readonly activityStore: ReadableActivityLogStore;
  /** Which adapter backs each port, for the start-up line. */
  readonly adapters: Record<string, string>;
  /** What the last readiness check found, or that the service is stopping: at once, never a wait on a store. */
  readonly readiness: () => Readiness;
  /** From now on /readyz answers 503 (the first step of a shutdown). */
  drain(): void;
  /** Every request still waiting on the upstream is answered with the failure message now (a stop's time limit). */
  cutUpstreamCalls(): void;
  /** Writes pending activity entries (within `timeoutMs`) and closes every connection. */
  close(timeoutMs: number): Promise<void>;
}

/** The composition root: the adapters the configuration names (the runtime opens them), the use cases on them, the app. */
export async function compose(config: Config, log: Log): Promise<Service> {
  // First: spans made from here on go to the collector.
  const tracing = await openTracing(config.tracing, log, 'cotizaciones-service');
  const adapters = await openAdapters(config, log);
  // Sessions are this channel's alone: the runtime offers the opener, the other channels never call it.
  const sessions = await openSessionStore(config, log);
  const activityLog = adapters.deps.activityLog;
  const checks = readinessMonitor(checkStores, READINESS_EVERY_MS);
  // Before start-up ends: /readyz's first answer is a check's finding (each check is bounded in time).
  await checks.firstCheck;
  const metrics = createMetrics(activityLog, () => activityStoreUp(checks.current()));
  let draining = false;
  const readiness = (): Readiness => (draining ? SHUTTING_DOWN : checks.current());

  const cutoff = upstreamWithCutoff(measuredUpstream(adapters.deps.upstream, metrics));
  const deps = { ...adapters.deps, upstream: cutoff.upstream };
  const app = createApp(
    {
      basePath: config.basePath,
      bodyLimitBytes: config.bodyLimitBytes,
      maxParams: config.maxParams,
      sessionKeys: config.sessionKeys,
      sessionPolicy: { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs },
      secureCookies: config.production,
      trustProxy: config.trustProxy,
      devLogin: config.devLogin,
      allowedOrigins: config.allowedOrigins,
      metrics: config.metrics,
      traced: tracing.enabled,
    },
    {
      useCases: useCases(deps, OPERATIONS),
      // The dev route shows what was just recorded: entries are written a moment after the answer.
      activity: { recent: (limit) => flushedWithin(activityLog, 1_000).then(() => adapters.activityStore.recent(limit)) },
      sessions,
      log,
      metrics,
      readiness,
    },
  );

  return {
    app,
    activityLog,
    activityStore: adapters.activityStore,
    adapters: {
      ...adapters.description,
      sessions: sessions.describe(),
      devLogin: config.devLogin ? 'on' : 'off',
      tracing: tracing.enabled ? 'OTLP' : 'off',
    },
    readiness,
    drain() {
      draining = true;
    },
    cutUpstreamCalls: () => cutoff.cut(),
    async close(timeoutMs) {
      const started = Date.now();
      checks.stop();
      await adapters.close(timeoutMs);
      await sessions.close();
      // The last spans (the stop's own requests included) within what is left of the budget.
      await tracing.shutdown(Math.max(100, timeoutMs - (Date.now() - started)));
    },
  };

  /** Only the session store stops the endpoints from answering; the activity log's entries wait for its store. */
  async function checkStores(): Promise<Omit<Readiness, 'checked'>> {
    const name = sessions.kind === 'php' ? 'PHP sessions' : 'session store';
    const [degraded, reasons] = await Promise.all([adapters.degraded(), failedChecks([readinessCheck(sessions.ping(), 1_000, name)])]);
    return { reasons, degraded };
  }
}

/** How long after one readiness check ends the next starts. */
const READINESS_EVERY_MS = 1_000;
const SHUTTING_DOWN: Readiness = { checked: true, reasons: [plainFinding('shutting down')], degraded: [] };

/** The activity log is the one store the endpoints do without: what a check finds degraded is it. */
const activityStoreUp = ({ checked, degraded }: Readiness): boolean => checked && degraded.length === 0;

function flushedWithin(log: BufferedActivityLog, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([log.flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
