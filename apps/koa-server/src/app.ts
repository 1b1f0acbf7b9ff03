import Router from '@koa/router';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { SessionPolicy } from '@cotizaciones/core';
import type { ReadableActivityLogStore, SessionStore } from '@cotizaciones/adapters';
import { mountDevRoutes } from './http/dev-routes.js';
import { crossSiteGuard } from './http/cross-site-guard.js';
import { endpoint, postOnly, type UseCase } from './http/endpoint.js';
import { errorHandler } from './http/error-handler.js';
import { REJECTIONS } from './http/rejection.js';
import { observeRequests } from './http/observe-requests.js';
import { requestLog } from './http/request-log.js';
import { replyJson } from './http/reply-json.js';
import { sessionMiddleware } from './http/session.js';
import { signingKeys } from './http/signing-keys.js';
import type { Metrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { QUOTATION_FIELD_PATH, QUOTATION_ITEM_PATH } from './paths.js';
import type { ServerLog } from './server-log.js';

export interface AppOptions {
  readonly basePath: string;
  readonly bodyLimitBytes: number;
  readonly maxParams: number;
  readonly sessionKeys: readonly string[];
  readonly sessionPolicy: SessionPolicy;
  readonly secureCookies: boolean;
  readonly trustProxy: boolean;
  readonly devLogin: boolean;
  /** Origins allowed to POST from a browser; undefined: only the service's own. */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** When set, GET /metrics wants `Authorization: Bearer <token>`. */
  readonly metricsToken?: string | undefined;
}

export interface AppDeps {
  readonly updateQuotationField: UseCase;
  readonly updateQuotationItem: UseCase;
  /** Read by the dev routes. */
  readonly activity: ReadableActivityLogStore;
  readonly sessionStore?: SessionStore | undefined;
  readonly log: ServerLog;
  readonly metrics: Metrics;
  /** Why the service is not ready: empty when it is. */
  readonly readiness: () => Promise<string[]>;
}

/** The Koa application, not listening: tests drive it on an ephemeral port. */
export function createApp(options: AppOptions, deps: AppDeps): Koa {
  const app = new Koa({ proxy: options.trustProxy });
  app.keys = signingKeys(options.sessionKeys);
  app.on('error', (error: unknown) => deps.log.error({ err: error }, 'koa error'));

  const limits = { maxBytes: options.bodyLimitBytes, maxParams: options.maxParams };
  const session = sessionMiddleware(app, {
    keys: options.sessionKeys,
    policy: options.sessionPolicy,
    secure: options.secureCookies,
    store: deps.sessionStore,
  });
  // koa-body reads an urlencoded body as text (its size limit answers 413) and we parse it by PHP's
  // rules; its own form parser (qs) would build arrays and objects only to be thrown away. Multipart is ours.
  const bodyParser = koaBody({
    json: false,
    urlencoded: false,
    multipart: false,
    text: true,
    textTypes: ['application/x-www-form-urlencoded'],
    textLimit: options.bodyLimitBytes,
    encoding: 'utf-8',
    parsedMethods: [HttpMethodEnum.POST],
    // Any failure to read the body is the client's: too large, or not readable (bad gzip/deflate, unknown encoding, cut short).
    onError: (error) => {
      throw (error as { status?: unknown }).status === 413 ? REJECTIONS.tooLarge(error) : REJECTIONS.malformed(error);
    },
  });
  const settings = { limits, policy: options.sessionPolicy, log: deps.log };

  const router = new Router({ sensitive: true, strict: true });
  router.get('/healthz', (ctx) => {
    replyJson(ctx, 200, { ok: true });
  });
  const openApi = JSON.stringify(openApiDocument(options.basePath));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApi;
  });
  router.get('/readyz', async (ctx) => {
    const problems = await deps.readiness();
    ctx.status = problems.length ? 503 : 200;
    ctx.body = problems.length ? { ok: false, reasons: problems } : { ok: true };
  });
  router.get('/metrics', async (ctx) => {
    if (options.metricsToken && ctx.get('Authorization') !== `Bearer ${options.metricsToken}`) {
      ctx.status = 401;
      ctx.body = 'unauthorized\n';
      return;
    }
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
  const sameSite = crossSiteGuard(options.allowedOrigins);
  router.all(`${options.basePath}${QUOTATION_FIELD_PATH}`, postOnly, sameSite, session, bodyParser, endpoint(deps.updateQuotationField, settings));
  router.all(`${options.basePath}${QUOTATION_ITEM_PATH}`, postOnly, sameSite, session, bodyParser, endpoint(deps.updateQuotationItem, settings));
  if (options.devLogin) {
    mountDevRoutes(router, { prefix: '', guard: sameSite, session, bodyParser, limits, activity: deps.activity });
  }

  const endpointPaths = new Map([
    [`${options.basePath}${QUOTATION_FIELD_PATH}`, 'update_cotizacion'],
    [`${options.basePath}${QUOTATION_ITEM_PATH}`, 'update_cot_item'],
  ]);
  app.use(requestLog(deps.log));
  app.use(observeRequests(deps.metrics, endpointPaths));
  app.use(errorHandler(deps.log));
  app.use(router.routes());
  app.use(() => {
    throw REJECTIONS.notFound();
  });
  return app;
}
