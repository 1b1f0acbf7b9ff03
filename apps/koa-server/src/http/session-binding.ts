import type { Session, SessionRecord } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/**
 * How the routes reach the session, whatever keeps it (signed cookie, Redis,
 * the PHP app's own store): one shape for every mode, so a route never knows
 * which one it runs on. The policy itself is not here: the core's
 * `controlledSession`, or the PHP app's own step in its adapter.
 */
export interface SessionBinding {
  /**
   * Reads an external store's record into the request, once however often called; absent when there
   * is none. The session from `sessionFor` calls it on first use itself; a route calls it only to
   * sign in or out (the dev routes).
   */
  readonly load?: ((ctx: RequestContext) => Promise<void>) | undefined;
  /** The request's session: the same one, read once, however often asked. */
  sessionFor(ctx: RequestContext): Session;
  /** Writes back what the request changed, if anything. */
  commit(ctx: RequestContext): Promise<void>;
  /** Signing in and out for the dev routes; absent where sign-in belongs to someone else (the PHP app). */
  readonly dev?: DevSignIn | undefined;
}

export interface DevSignIn {
  /** Signs `record.user` in under a fresh session id (no fixation). */
  signIn(ctx: RequestContext, record: Required<SessionRecord>): Promise<void>;
  signOut(ctx: RequestContext): Promise<void>;
}

/**
 * One Session per request, opened on first use. The session itself reads its store once (the core's
 * `controlledSession`, the one cache); this only notes the user it finds for the request log.
 */
export function perRequest(ctx: RequestContext, open: () => Session): Session {
  let session = ctx.state.session;
  if (!session) {
    const opened = open();
    session = {
      currentUser: () =>
        opened.currentUser().then((user) => {
          ctx.state.userId = user?.id;
          return user;
        }),
    };
    ctx.state.session = session;
  }
  return session;
}

/**
 * The binding whose sessions load the store's record on their first use, not before the route: a
 * store that cannot be reached is then the session's failure (`SessionUnavailableError`), which
 * the use case turns into its outcome like any other.
 */
export function loadedOnFirstUse(binding: SessionBinding): SessionBinding {
  const { load } = binding;
  if (!load) return binding;
  return {
    ...binding,
    sessionFor(ctx) {
      const session = binding.sessionFor(ctx);
      return { currentUser: () => load(ctx).then(() => session.currentUser()) };
    },
  };
}
