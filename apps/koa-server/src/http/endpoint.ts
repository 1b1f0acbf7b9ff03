import type { Context, Middleware } from 'koa';
import type { ChangeRequest, Outcome, SessionPolicy } from '@cotizaciones/core';
import type { ServerLog } from '../server-log.js';
import type { BodyLimits } from './parse-multipart.js';
import { readFormParams } from './read-form-params.js';
import { REJECTIONS } from './rejection.js';
import { replyJson } from './reply-json.js';
import { commitSession, koaSession } from './session.js';

export type UseCase = (request: ChangeRequest) => Promise<Outcome>;

export interface EndpointSettings {
  readonly limits: BodyLimits;
  readonly policy: SessionPolicy;
  readonly log: ServerLog;
}

/** Only POST reaches an endpoint; anything else is 405 with `Allow: POST`. */
export const postOnly: Middleware = async (ctx, next) => {
  if (ctx.method !== 'POST') {
    ctx.set('Allow', 'POST');
    throw REJECTIONS.methodNotAllowed();
  }
  await next();
};

/** Runs a use case for a form POST and answers its reply; the outcome is kept for the request log. */
export function endpoint(useCase: UseCase, settings: EndpointSettings): Middleware {
  return async (ctx: Context) => {
    const params = await readFormParams(ctx, settings.limits);
    const outcome = await useCase({
      session: koaSession(ctx, settings.policy),
      params,
      meta: { requestId: ctx.state.requestId as string | undefined, clientIp: ctx.ip, userAgent: ctx.get('User-Agent') || undefined },
    });
    ctx.state.outcome = outcome;
    try {
      await commitSession(ctx);
    } catch (error) {
      // The change already happened: a session that could not be refreshed must not hide that.
      settings.log.warn({ err: error }, 'session could not be saved');
    }
    replyJson(ctx, 200, outcome.reply);
  };
}
