import type Koa from 'koa';
import type { SessionStore } from '@cotizaciones/adapters';
import { koaSessionBinding, type SessionSettings } from './koa-session-binding.js';
import { phpSessionBinding } from './php-session-binding.js';
import type { SessionBinding } from './session-binding.js';

/** The binding for a store of any mode: the one place the mode is looked at. */
export function sessionBinding(app: Koa, store: SessionStore, settings: Omit<SessionSettings, 'store'>): SessionBinding {
  switch (store.kind) {
    case 'cookie':
      return koaSessionBinding(app, settings);
    case 'records':
      return koaSessionBinding(app, { ...settings, store });
    case 'php':
      return phpSessionBinding(store);
  }
}
