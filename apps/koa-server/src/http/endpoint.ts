import type { FormParams, UseCase } from '@cotizaciones/core';
import type { Log } from '@cotizaciones/runtime';
import type { RequestCheck } from './cross-site-guard.js';
import type { BodyLimits } from './parse-multipart.js';
import { readFormParams } from './read-form-params.js';
import { REJECTIONS } from './rejection.js';
import { replyJson } from './reply-json.js';
import { requestMeta } from './request-meta.js';
import type { SessionBinding } from './session-binding.js';
import type { RequestMiddleware } from './request-state.js';

export interface EndpointSettings {
  readonly limits: BodyLimits;
  readonly session: SessionBinding;
  readonly log: Log;
  /** Refuses a browser's cross-site POST. */
  readonly sameSite: RequestCheck;
}

const NO_PARAMS: FormParams = new Map();

/**
 * Runs a use case for a form POST and answers its reply; the outcome is kept for the request log.
 * Only POST is served (else 405 with `Allow: POST`), and not from another site. The body is read
 * only for a signed-in user: anyone else is answered by the use case (which owns the
 * "No autenticado" rule) with no parameters, before a byte of the body is read.
 */
export function endpoint(useCase: UseCase, settings: EndpointSettings): RequestMiddleware {
  // The whole route is this one middleware: each one more would cost Koa an async frame and a dispatch per request.
  return async (ctx) => {
    if (ctx.method !== 'POST') throw REJECTIONS.methodNotAllowed('POST');
    settings.sameSite(ctx);
    await settings.session.load?.(ctx);
    // One read of the session per request, whatever asks for the user (the binding caches it).
    const session = settings.session.sessionFor(ctx);
    const params = (await session.currentUser()) ? await readFormParams(ctx, settings.limits) : NO_PARAMS;
    const outcome = await useCase({
      session,
      params,
      meta: requestMeta(ctx),
    });
    ctx.state.outcome = outcome.kind;
    ctx.state.cause = outcome.cause;
    try {
      await settings.session.commit(ctx);
    } catch (error) {
      // The change already happened: a session that could not be refreshed must not hide that.
      settings.log.warn({ err: error }, 'session could not be saved');
    }
    replyJson(ctx, 200, outcome.reply);
  };
}
