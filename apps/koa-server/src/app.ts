import Router from '@koa/router';
import Koa from 'koa';
import { OPERATIONS, type Operation, type SessionPolicy, type UseCase } from '@cotizaciones/core';
import { signingKeys, type ReadableActivityLogStore, type SessionStore } from '@cotizaciones/adapters';
import { sessionBinding, sessionCookie } from './http/bind-sessions.js';
import { mountDevRoutes } from './http/dev-routes.js';
import { bearerMatcher } from './http/bearer-guard.js';
import { crossSiteGuard } from './http/cross-site-guard.js';
import { endpoint } from './http/endpoint.js';
import { REJECTIONS } from './http/rejection.js';
import type { RequestState } from './http/request-state.js';
import { requestFrame } from './http/request-frame.js';
import { replyJsonText, replyMetrics, replyMetricsUnauthorized, replyOpenApi } from './http/answers.js';
import { metricsTokenHolders, PROBE_PATHS, probeAnswers } from './http/probes.js';
import type { MetricsAccess } from './config.js';
import type { Metrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import type { Log, Readiness } from '@cotizaciones/runtime';
import { logHttpError } from './http/log-http-error.js';
import { compileTrust, type TrustProxy } from './http/trusted-proxies.js';

export interface AppOptions {
  readonly basePath: string;
  readonly bodyLimitBytes: number;
  readonly maxParams: number;
  readonly sessionKeys: readonly string[];
  readonly sessionPolicy: SessionPolicy;
  readonly secureCookies: boolean;
  /** The reverse proxies whose X-Forwarded-*, X-Request-Id and trace context are taken (TRUST_PROXY). */
  readonly trustProxy: TrustProxy;
  readonly devLogin: boolean;
  /** Origins allowed to POST from a browser; undefined: only the service's own. */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** GET /metrics for anyone (the default), only with `Authorization: Bearer <token>`, or not at all (404). */
  readonly metrics?: MetricsAccess | undefined;
  /** Each request a server span (OpenTelemetry started: `openTracing`). */
  readonly traced?: boolean | undefined;
  /** The operations served, each at its `webPath`: the core's catalog unless a test serves another. */
  readonly operations?: readonly Operation[] | undefined;
}

export interface AppDeps {
  /** Each operation's use case, by the operation's name (the core's `useCases`). */
  readonly useCases: ReadonlyMap<string, UseCase>;
  /** Read by the dev routes. */
  readonly activity: Pick<ReadableActivityLogStore, 'recent'>;
  /** Where sessions live, whatever the mode (signed cookies, Redis, the PHP app's store). */
  readonly sessions: SessionStore;
  readonly log: Log;
  readonly metrics: Metrics;
  /** What the last readiness check found (or that the service is stopping), at once. */
  readonly readiness: () => Readiness;
}

/** The Koa application, not listening: tests drive it on an ephemeral port. */
export function createApp(options: AppOptions, deps: AppDeps): Koa<RequestState> {
  const operations = options.operations ?? OPERATIONS;
  const trust = compileTrust(options.trustProxy);
  // Koa reads X-Forwarded-* only with `proxy`; the request frame drops them from any peer not trusted.
  const app = new Koa<RequestState>({ proxy: trust !== undefined });
  // Imported once, for koa-session's cookies and the binding's check of which key signed one.
  const signer = signingKeys(options.sessionKeys);
  app.keys = signer;
  app.on('error', (error: unknown) => logHttpError(deps.log, error, 'koa error'));

  const limits = { maxBytes: options.bodyLimitBytes, maxParams: options.maxParams };
  const sessions = sessionBinding(
    app,
    deps.sessions,
    { signer, policy: options.sessionPolicy, secure: options.secureCookies },
    options.traced === true,
  );
  const sameSite = crossSiteGuard(options.allowedOrigins);
  const settings = { limits, session: sessions, log: deps.log, sameSite };

  const router = new Router<RequestState>({ sensitive: true, strict: true });
  // The same answers as the server's own ahead of the line (probesAheadOfLine), for the probes it leaves to the line: pipelined, HEAD, with a body.
  const probes = probeAnswers(deps.readiness, metricsTokenHolders(options.metrics));
  for (const path of PROBE_PATHS) {
    router.get(path, (ctx) => {
      const { status, body } = probes(path, ctx.headers.authorization);
      replyJsonText(ctx, status, body);
    });
  }
  const openApi = JSON.stringify(openApiDocument(options.basePath, sessionCookie(deps.sessions), operations));
  router.get('/openapi.json', (ctx) => replyOpenApi(ctx, openApi));
  const metrics = options.metrics ?? 'open';
  const metricsAuthorized = typeof metrics === 'object' ? bearerMatcher(metrics.token) : undefined;
  // Production without a token: not served at all, as if absent (the start-up log says so).
  if (metrics !== 'off') {
    router.get('/metrics', async (ctx) => {
      if (metricsAuthorized && !metricsAuthorized(ctx.get('Authorization'))) {
        replyMetricsUnauthorized(ctx);
        return;
      }
      replyMetrics(ctx, deps.metrics.registry.contentType, await deps.metrics.registry.metrics());
    });
  }
  for (const operation of operations) {
    const useCase = deps.useCases.get(operation.name);
    if (!useCase) throw new Error(`no use case for the operation ${operation.name}`);
    router.all(`${options.basePath}${operation.webPath}`, endpoint(useCase, settings));
  }
  // Only where the service keeps its own sessions: with the PHP app's, sign-in is the PHP app's.
  if (options.devLogin && sessions.dev) {
    mountDevRoutes(router, {
      prefix: options.basePath,
      guard: sameSite,
      session: sessions,
      signing: sessions.dev,
      limits,
      activity: deps.activity,
    });
  }

  const endpointPaths = new Map(operations.map((operation) => [`${options.basePath}${operation.webPath}`, operation.name]));
  app.use(requestFrame(deps.log, deps.metrics, endpointPaths, options.traced === true, trust));
  app.use(router.routes());
  app.use(() => {
    throw REJECTIONS.notFound();
  });
  return app;
}
