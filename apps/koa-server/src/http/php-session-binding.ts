import type { Session } from '@cotizaciones/core';
import { perRequest, type SessionBinding } from './session-binding.js';

/** Sessions found from a request's Cookie header alone (the PHP app's, read by its adapter). */
export interface CookieHeaderSessions {
  sessionFor(cookieHeader: string | undefined): Session;
}

/**
 * SESSION_STORE=php: the PHP app's session cookie and store. No cookie is
 * written and nothing is signed; the adapter reads on first use, applies the
 * PHP app's session-control step and touches the store itself, so there is
 * nothing to commit.
 */
export function phpSessionBinding(sessions: CookieHeaderSessions): SessionBinding {
  return {
    sessionFor: (ctx) => perRequest(ctx, () => sessions.sessionFor(ctx.get('Cookie') || undefined)),
    commit: () => Promise.resolve(),
  };
}
