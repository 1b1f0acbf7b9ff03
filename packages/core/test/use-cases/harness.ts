import {
  OPERATIONS,
  phpFormParams,
  TokenUnavailableError,
  UPDATE_QUOTATION_FIELD,
  UPDATE_QUOTATION_ITEM,
  useCases,
  type TokenSource,
  type UseCase,
  type UseCaseDeps,
} from '../../src/index.js';
import { inMemoryActivityLog, inMemorySession, inMemoryUpstream } from '../../src/testing/index.js';

export const NOW = new Date('2026-11-21T10:00:00.000Z');
export const USER = { id: 42, name: 'Ana' };

/** The use cases on in-memory adapters, with a signed-in user unless told otherwise. */
export function harness(options: { tokens?: TokenSource } = {}) {
  const upstream = inMemoryUpstream();
  const activityLog = inMemoryActivityLog();
  const deps: UseCaseDeps = {
    upstream,
    activityLog,
    tokens: options.tokens ?? { token: () => Promise.resolve('secret-token') },
    now: () => NOW,
  };
  const built = useCases(deps, OPERATIONS);
  const field = built.get(UPDATE_QUOTATION_FIELD.name) as UseCase;
  const item = built.get(UPDATE_QUOTATION_ITEM.name) as UseCase;
  const request = (pairs: Array<[string, string]>, user: unknown) => ({
    session: inMemorySession(user),
    params: phpFormParams(pairs),
    idempotencyKey: 'key-1',
    meta: { requestId: 'req-1', clientIp: '10.0.0.1', userAgent: 'test' },
  });
  return {
    upstream,
    activityLog,
    useCases: { field, item },
    field: (pairs: Array<[string, string]>, user: unknown = USER) => field(request(pairs, user)),
    item: (pairs: Array<[string, string]>, user: unknown = USER) => item(request(pairs, user)),
  };
}

export const failingTokens: TokenSource = {
  token: () => Promise.reject(new TokenUnavailableError('identity service down')),
};

/** A token source that issues `tok-1`, `tok-2`, … on each refresh, and records the calls. */
export function refreshableTokens() {
  let issued = 1;
  const refreshes: string[] = [];
  const source: TokenSource = {
    token: () => Promise.resolve(`tok-${issued}`),
    refresh: (_user, rejected) => {
      refreshes.push(rejected);
      issued += 1;
      return Promise.resolve(`tok-${issued}`);
    },
  };
  return { source, refreshes };
}
