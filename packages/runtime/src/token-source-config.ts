import { DEMO_TOKEN } from './demo-upstream.js';
import type { Report } from './read-env.js';

/** Where the upstream bearer token comes from. */
export type TokenSourceConfig =
  | { readonly kind: 'static'; readonly token: string }
  | {
      readonly kind: 'client-credentials';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scope: string | undefined;
    }
  | { readonly kind: 'session'; readonly key: string };

export interface TokenVariables {
  readonly UPSTREAM_TOKEN?: string | undefined;
  readonly UPSTREAM_TOKEN_URL?: string | undefined;
  readonly UPSTREAM_CLIENT_ID?: string | undefined;
  readonly UPSTREAM_CLIENT_SECRET?: string | undefined;
  readonly UPSTREAM_SCOPE?: string | undefined;
  readonly UPSTREAM_TOKEN_SESSION_KEY?: string | undefined;
}

/** Exactly one token source: a static token, OAuth2 client credentials, or the user's own token in the session. */
export function tokenSourceOf(e: TokenVariables, demo: boolean, report: Report): TokenSourceConfig {
  const names = ['UPSTREAM_TOKEN', 'UPSTREAM_TOKEN_URL', 'UPSTREAM_TOKEN_SESSION_KEY'] as const;
  const chosen = names.filter((name) => e[name] !== undefined);
  if (chosen.length > 1) report(chosen[1]!, `must not be set with ${chosen[0]}: set only one token source`);
  if (e.UPSTREAM_TOKEN_URL) {
    if (!e.UPSTREAM_CLIENT_ID) report('UPSTREAM_CLIENT_ID', 'is required with UPSTREAM_TOKEN_URL');
    if (!e.UPSTREAM_CLIENT_SECRET) report('UPSTREAM_CLIENT_SECRET', 'is required with UPSTREAM_TOKEN_URL');
    return {
      kind: 'client-credentials',
      tokenUrl: e.UPSTREAM_TOKEN_URL,
      clientId: e.UPSTREAM_CLIENT_ID ?? '',
      clientSecret: e.UPSTREAM_CLIENT_SECRET ?? '',
      scope: e.UPSTREAM_SCOPE,
    };
  }
  if (e.UPSTREAM_TOKEN_SESSION_KEY) return { kind: 'session', key: e.UPSTREAM_TOKEN_SESSION_KEY };
  if (e.UPSTREAM_TOKEN) return { kind: 'static', token: e.UPSTREAM_TOKEN };
  if (!demo)
    report('UPSTREAM_TOKEN', 'is required when UPSTREAM_BASE_URL is set (or UPSTREAM_TOKEN_URL, or UPSTREAM_TOKEN_SESSION_KEY)', ...names);
  return { kind: 'static', token: DEMO_TOKEN };
}
