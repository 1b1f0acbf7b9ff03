import type { Session } from '../ports/session.js';
import { toSessionUser } from '../session-control.js';

/** A session held in memory: `user` is whatever the store would hold under the key `user`. */
export function inMemorySession(user?: unknown): Session {
  return {
    currentUser: () => Promise.resolve(toSessionUser(user)),
  };
}
