import type Koa from 'koa';
import type { SessionStore } from '@cotizaciones/adapters';
import { koaSessionBinding, type SessionSettings } from './koa-session-binding.js';
import { phpSessionBinding } from './php-session-binding.js';
import type { SessionBinding } from './session-binding.js';
import { tracedSessions, type SessionMode } from './traced-session.js';

/** The binding for a store of any mode: the one place the mode is looked at. `traced`: its reads as spans. */
export function sessionBinding(app: Koa, store: SessionStore, settings: Omit<SessionSettings, 'store'>, traced: boolean): SessionBinding {
  const [binding, mode] = bound(app, store, settings);
  return traced ? tracedSessions(binding, mode) : binding;
}

function bound(app: Koa, store: SessionStore, settings: Omit<SessionSettings, 'store'>): [SessionBinding, SessionMode] {
  switch (store.kind) {
    case 'cookie':
      return [koaSessionBinding(app, settings), 'cookie'];
    case 'records':
      return [koaSessionBinding(app, { ...settings, store }), 'redis'];
    case 'php':
      return [phpSessionBinding(store), `php ${store.handler}`];
  }
}
