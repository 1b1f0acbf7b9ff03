import type { PhpSessionStore } from '@cotizaciones/adapters';
import { clientIp } from './request-meta.js';
import { perRequest, type SessionBinding } from './session-binding.js';

/**
 * SESSION_STORE=php: the PHP app's session cookie and store. No cookie is
 * written and nothing is signed; the adapter reads on first use, applies the
 * PHP app's session-control step and touches the store itself, so there is
 * nothing to commit.
 */
export function phpSessionBinding(sessions: Pick<PhpSessionStore, 'sessionFor'>): SessionBinding {
  return {
    // The client's address bounds how many of its reads wait on PHP's locks.
    sessionFor: (ctx) => perRequest(ctx, () => sessions.sessionFor(ctx.get('Cookie') || undefined, clientIp(ctx))),
    commit: () => Promise.resolve(),
  };
}
