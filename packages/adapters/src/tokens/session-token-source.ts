import { TokenUnavailableError, type TokenSource } from '@cotizaciones/core';

/** The signed-in user's own token, held in the session under `user[key]`; it cannot be refreshed here. */
export function sessionTokenSource(key: string): TokenSource {
  return {
    token(user) {
      const token = user[key];
      return typeof token === 'string' && token !== ''
        ? Promise.resolve(token)
        : Promise.reject(new TokenUnavailableError(`the session user has no "${key}" token`));
    },
  };
}
