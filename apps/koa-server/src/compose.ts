import type Koa from 'koa';
import { updateQuotationField, updateQuotationItem, type TokenSource, type Upstream } from '@cotizaciones/core';
import {
  openActivityLog,
  sessionTokenSource,
  staticTokenSource,
  type ActivityLogProblem,
  type BufferedActivityLog,
  type ClosableUpstream,
  type ReadableActivityLogStore,
} from '@cotizaciones/adapters';
import { createApp } from './app.js';
import { createMetrics, measuredUpstream } from './metrics.js';
import type { Config } from './config.js';
import { demoUpstream } from './demo-upstream.js';
import type { ServerLog } from './server-log.js';

export interface Service {
  readonly app: Koa;
  readonly activityLog: BufferedActivityLog;
  readonly activityStore: ReadableActivityLogStore;
  /** Which adapter backs each port, for the start-up line. */
  readonly adapters: Record<string, string>;
  /** From now on /readyz answers 503 (the first step of a shutdown). */
  drain(): void;
  /** Writes pending activity entries (within `timeoutMs`) and closes every connection. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * The composition root: builds each adapter the configuration names and wires
 * the use cases to them. Adapters with heavy clients are imported only when
 * chosen, so a process carries only the libraries it uses.
 */
export async function compose(config: Config, log: ServerLog): Promise<Service> {
  const demo = config.upstreamBaseUrl === undefined;
  const upstream: Upstream & { close?: () => void } = demo ? demoUpstream() : await httpUpstream(config, config.upstreamBaseUrl);
  const tokens = await tokenSourceFor(config);

  const activity = await openActivityLog(config.activityLogUrl, {
    table: config.activityLogTable,
    maxQueue: config.activityLogQueueMax,
    onProblem: (problem) => reportActivityProblem(log, problem),
    onConnectionError: (error) => log.warn({ err: error }, 'activity log connection lost'),
  });

  const sessionStore =
    config.sessionStore === 'redis'
      ? (await import('@cotizaciones/adapters/redis')).redisSessionStore({
          url: config.redisUrl!,
          prefix: config.redisKeyPrefix,
          onConnectionError: (error) => log.warn({ err: error }, 'session store (Redis) connection error'),
        })
      : undefined;
  if (sessionStore) {
    await sessionStore.ready(2_000).catch((error: unknown) => log.error({ err: error }, 'Redis is not reachable yet; answering 503 until it is'));
  }

  const metrics = createMetrics(() => activity.log.stats());
  let draining = false;
  const readiness = async (): Promise<string[]> => {
    if (draining) return ['shutting down'];
    const checks = await Promise.allSettled([
      withTimeout(activity.store.ping(), 1_000, 'activity log'),
      sessionStore ? withTimeout(sessionStore.ping(), 1_000, 'session store') : Promise.resolve(),
    ]);
    return checks.flatMap((check) => (check.status === 'rejected' ? [errorText(check.reason)] : []));
  };

  const deps = { upstream: measuredUpstream(upstream, metrics), tokens, activityLog: activity.log };
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
      metricsToken: config.metricsToken,
    },
    {
      updateQuotationField: updateQuotationField(deps),
      updateQuotationItem: updateQuotationItem(deps),
      activity: activity.store,
      sessionStore,
      log,
      metrics,
      readiness,
    },
  );

  return {
    app,
    activityLog: activity.log,
    activityStore: activity.store,
    adapters: {
      upstream: demo ? 'demo (built in)' : `${config.upstreamClient} → ${config.upstreamBaseUrl}`,
      activityLog: activity.engine,
      upstreamToken: config.tokenSource.kind,
      sessions: config.sessionStore,
      devLogin: config.devLogin ? 'on' : 'off',
    },
    drain() {
      draining = true;
    },
    async close(timeoutMs) {
      await activity.log.close(timeoutMs);
      upstream.close?.();
      await sessionStore?.close();
    },
  };
}

function withTimeout(check: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([check.then(() => undefined, (error: unknown) => Promise.reject(new Error(`${what}: ${errorText(error)}`))), timeout]).finally(() =>
    clearTimeout(timer),
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function httpUpstream(config: Config, baseUrl: string): Promise<ClosableUpstream> {
  const options = { baseUrl, timeoutMs: config.upstreamTimeoutMs, maxResponseBytes: config.upstreamMaxResponseBytes };
  return config.upstreamClient === 'undici'
    ? (await import('@cotizaciones/adapters/undici')).undiciUpstream(options)
    : (await import('@cotizaciones/adapters/got')).gotUpstream(options);
}

async function tokenSourceFor(config: Config): Promise<TokenSource> {
  const source = config.tokenSource;
  switch (source.kind) {
    case 'static':
      return staticTokenSource(source.token);
    case 'session':
      return sessionTokenSource(source.key);
    case 'client-credentials': {
      const { clientCredentialsTokenSource } = await import('@cotizaciones/adapters/oauth');
      return clientCredentialsTokenSource({ ...source, timeoutMs: config.upstreamTimeoutMs });
    }
  }
}

function reportActivityProblem(log: ServerLog, problem: ActivityLogProblem): void {
  switch (problem.kind) {
    case 'write-failed':
      log.error({ err: problem.error, attempt: problem.attempt, queued: problem.queued }, 'activity log write failed; will retry');
      return;
    case 'dropped':
      log.error({ dropped: problem.dropped }, 'activity log queue full; entries dropped');
      return;
    case 'unwritten-at-close':
      log.error({ lost: problem.lost }, 'activity log entries not written before shutdown');
  }
}
