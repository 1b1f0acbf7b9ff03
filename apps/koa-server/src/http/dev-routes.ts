import type Router from '@koa/router';
import { newSessionRecord, sessionUnavailable, toSessionUser } from '@cotizaciones/core';
import type { ReadableActivityLogStore } from '@cotizaciones/adapters';
import type { BodyLimits } from './parse-multipart.js';
import { readFormParams } from './read-form-params.js';
import { answerOutcome } from './answer-outcome.js';
import { replyJson, replyRows } from './answers.js';
import type { RequestCheck } from './cross-site-guard.js';
import type { DevSignIn, SessionBinding } from './session-binding.js';
import type { RequestContext } from './request-state.js';

/**
 * Development helpers, mounted only when DEV_LOGIN is on (never in production):
 * sign in as any user, sign out, and read the newest activity-log rows.
 */
export function mountDevRoutes(
  router: Router,
  options: {
    prefix: string;
    guard: RequestCheck;
    session: SessionBinding;
    signing: DevSignIn;
    limits: BodyLimits;
    activity: Pick<ReadableActivityLogStore, 'recent'>;
  },
): void {
  const { prefix, guard, session, signing, limits } = options;
  const ready = async (ctx: RequestContext) => {
    guard(ctx);
    await session.load?.(ctx);
  };
  /** Runs `route`; a session store that cannot be reached is the core's outcome, answered as the endpoints answer it. */
  const outageAnswered = (route: (ctx: RequestContext) => Promise<void>) => async (ctx: RequestContext) => {
    try {
      await route(ctx);
    } catch (error) {
      answerOutcome(ctx, sessionUnavailable(error));
    }
  };

  router.post(
    `${prefix}/dev/login`,
    outageAnswered(async (ctx) => {
      await ready(ctx);
      // Every plain form field becomes a property of the user (`id`, `name`, a `token` for UPSTREAM_TOKEN_SESSION_KEY…).
      const params = await readFormParams(ctx, limits);
      const user = toSessionUser(Object.fromEntries([...params].filter(([, value]) => typeof value === 'string')));
      if (!user) {
        replyJson(ctx, 200, { ok: false, msg: 'Falta el id de usuario.' });
        return;
      }
      await signing.signIn(ctx, newSessionRecord(user, Date.now()));
      replyJson(ctx, 200, { ok: true });
    }),
  );

  router.post(
    `${prefix}/dev/logout`,
    outageAnswered(async (ctx) => {
      await ready(ctx);
      await signing.signOut(ctx);
      replyJson(ctx, 200, { ok: true });
    }),
  );

  router.get(`${prefix}/dev/activity`, async (ctx) => {
    const limit = Math.min(100, Math.max(1, Number.parseInt(String(ctx.query.limit ?? '10'), 10) || 10));
    replyRows(ctx, await options.activity.recent(limit));
  });
}
