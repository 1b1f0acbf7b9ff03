import { OPERATIONS, UPDATE_QUOTATION_FIELD, useCases, type TokenSource, type UseCase } from '@cotizaciones/core';
import { bufferedActivityLog, cookieSessionStore, inMemoryActivityLogStore, staticTokenSource } from '@cotizaciones/adapters';
import { inMemoryActivityLog, inMemoryUpstream } from '@cotizaciones/core/testing';
import type { Readiness } from '@cotizaciones/runtime';
import { createApp, type AppDeps, type AppOptions } from '../../src/app.js';
import { createMetrics } from '../../src/metrics.js';
import type { ServerLimits } from '../../src/http-server.js';
import { captureLog, cookieHeader, listen, SESSION_KEY } from './service.js';

/** Every store answering. */
export const READY: Readiness = { checked: true, reasons: [], degraded: [] };

export const DEFAULT_OPTIONS: AppOptions = {
  basePath: '',
  bodyLimitBytes: 1024 * 1024,
  maxParams: 1000,
  sessionKeys: [SESSION_KEY],
  sessionPolicy: { idleMs: 30 * 60_000, maxMs: 8 * 3_600_000 },
  secureCookies: false,
  trustProxy: 0,
  devLogin: true,
};

/** createApp on in-memory adapters, for what the composed service cannot easily be made to do. */
export async function startApp(
  options: Partial<AppOptions> = {},
  deps: Partial<AppDeps> & { tokens?: TokenSource; updateQuotationField?: UseCase } = {},
  limits: Partial<ServerLimits> = {},
) {
  const upstream = inMemoryUpstream();
  const activityLog = inMemoryActivityLog();
  // The metrics read a buffered log's counts; this app records into an in-memory one that keeps none: all zero.
  const noStats = bufferedActivityLog(inMemoryActivityLogStore());
  const useCaseDeps = { upstream, tokens: deps.tokens ?? staticTokenSource('tok'), activityLog };
  const logs = captureLog();
  const readiness = deps.readiness ?? (() => READY);
  const app = createApp(
    { ...DEFAULT_OPTIONS, ...options },
    {
      useCases: new Map([
        ...useCases(useCaseDeps, options.operations ?? OPERATIONS),
        ...(deps.updateQuotationField ? [[UPDATE_QUOTATION_FIELD.name, deps.updateQuotationField] as const] : []),
      ]),
      activity: inMemoryActivityLogStore(),
      sessions: deps.sessions ?? cookieSessionStore(),
      log: logs.log,
      metrics: createMetrics(noStats, () => true),
      readiness,
    },
  );
  const { server, url } = await listen(app, limits, logs.log, readiness);
  return {
    url,
    upstream,
    activityLog,
    logs,
    async signIn(id = '7', headers: Record<string, string> = {}) {
      const response = await fetch(`${url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id }), headers });
      return cookieHeader(response);
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
