import { TokenUnavailableError, type TokenSource } from '@cotizaciones/core';

/** One configured token for every request; it cannot be refreshed. */
export function staticTokenSource(token: string | undefined): TokenSource {
  return {
    token: () => (token ? Promise.resolve(token) : Promise.reject(new TokenUnavailableError('no static upstream token is configured'))),
  };
}
