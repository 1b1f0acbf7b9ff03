import type { PhpSessionStore } from '@cotizaciones/adapters';
import { perRequest, type SessionBinding } from './session-binding.js';

/**
 * SESSION_STORE=php: the PHP app's session cookie and store. No cookie is
 * written and nothing is signed; the adapter reads on first use, applies the
 * PHP app's session-control step and touches the store itself, so there is
 * nothing to commit.
 */
export function phpSessionBinding(sessions: Pick<PhpSessionStore, 'sessionFor'>): SessionBinding {
  return {
    sessionFor: (ctx) => perRequest(ctx, () => sessions.sessionFor(ctx.get('Cookie') || undefined)),
    commit: () => Promise.resolve(),
  };
}
