import { randomUUID } from 'node:crypto';
import type { UseCase } from '@cotizaciones/core';
import type { Log } from '@cotizaciones/runtime';
import type { RequestCheck } from './cross-site-guard.js';
import type { BodyLimits } from './parse-multipart.js';
import { readFormParams } from './read-form-params.js';
import { answerOutcome } from './answer-outcome.js';
import { REJECTIONS } from './rejection.js';
import { requestMeta } from './request-meta.js';
import type { SessionBinding } from './session-binding.js';
import type { RequestContext, RequestMiddleware } from './request-state.js';

export interface EndpointSettings {
  readonly limits: BodyLimits;
  readonly session: SessionBinding;
  readonly log: Log;
  /** Refuses a browser's cross-site POST. */
  readonly sameSite: RequestCheck;
}

/**
 * Runs a use case for a form POST and answers each of its outcomes; the outcome is kept for the
 * request log and the metrics. Only POST is served (else 405 with `Allow: POST`), and not from
 * another site. The use case owns the "No autenticado" rule and asks for the body only past it; the
 * session is read on its first use, so a store that cannot be reached is an outcome too.
 */
export function endpoint(useCase: UseCase, settings: EndpointSettings): RequestMiddleware {
  // The whole route is this one middleware: each one more would cost Koa an async frame and a dispatch per request.
  return async (ctx) => {
    if (ctx.method !== 'POST') throw REJECTIONS.methodNotAllowed('POST');
    settings.sameSite(ctx);
    const outcome = await useCase({
      session: settings.session.sessionFor(ctx),
      // Read by the use case only for a signed-in user: anyone else costs no byte of the body.
      params: () => readFormParams(ctx, settings.limits),
      // Assigned with the request id by the request frame, before any route.
      idempotencyKey: ctx.state.requestId ?? randomUUID(),
      meta: requestMeta(ctx),
      // The request's own state is the tally: the service-share metric costs no object per request.
      waits: ctx.state,
    });
    // The caller could not be identified: nothing to commit.
    if (outcome.kind !== 'session-unavailable') await commit(ctx, settings);
    answerOutcome(ctx, outcome);
  };
}

async function commit(ctx: RequestContext, { session, log }: EndpointSettings): Promise<void> {
  try {
    await session.commit(ctx);
  } catch (error) {
    // The change already happened: a session that could not be refreshed must not hide that.
    log.warn({ err: error }, 'session could not be saved');
  }
}
