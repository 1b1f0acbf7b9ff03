import type Koa from 'koa';
import type { SessionStore } from '@cotizaciones/adapters';
import { SESSION_COOKIE, koaSessionBinding, type SessionSettings } from './koa-session-binding.js';
import { phpSessionBinding } from './php-session-binding.js';
import { loadedOnFirstUse, type SessionBinding } from './session-binding.js';
import { tracedSessions, type SessionMode } from './traced-session.js';

/** The binding for a store of any mode: the one place the mode is looked at. `traced`: its reads as spans. */
export function sessionBinding(app: Koa, store: SessionStore, settings: Omit<SessionSettings, 'store'>, traced: boolean): SessionBinding {
  const [binding, mode] = bound(app, store, settings);
  return loadedOnFirstUse(traced ? tracedSessions(binding, mode) : binding);
}

/** The cookie a mode's sessions are read from, as the OpenAPI document names it. */
export function sessionCookie(store: SessionStore): { readonly name: string; readonly description: string } {
  return store.kind === 'php'
    ? { name: store.cookieName, description: "The PHP app's session cookie (PHP_SESSION_NAME)." }
    : { name: SESSION_COOKIE, description: 'The signed session cookie (with its .sig companion).' };
}

function bound(app: Koa, store: SessionStore, settings: Omit<SessionSettings, 'store'>): [SessionBinding, SessionMode] {
  switch (store.kind) {
    case 'cookie':
      return [koaSessionBinding(app, settings), 'cookie'];
    case 'records':
      return [koaSessionBinding(app, { ...settings, store }), store.mode ?? 'records'];
    case 'php':
      return [phpSessionBinding(store), store.mode];
  }
}
