import { varyBySite } from './answers.js';
import { REJECTIONS } from './rejection.js';
import type { RequestContext } from './request-state.js';

/** A check a route makes before its work: throws a Rejection to refuse the request. */
export type RequestCheck = (ctx: RequestContext) => void;

/**
 * Refuses a state-changing POST that a browser sent from another site: one
 * marked `Sec-Fetch-Site: cross-site`, or whose `Origin` is not allowed (by
 * default only the service's own origin). Requests without `Origin` (curl,
 * server to server, old browsers on same-origin forms) pass: SameSite=Lax
 * cookies already keep cross-site POSTs from carrying the session.
 */
export function crossSiteGuard(allowedOrigins: readonly string[] | undefined): RequestCheck {
  const allowed = allowedOrigins && new Set(allowedOrigins.map(normalise));
  return (ctx) => {
    varyBySite(ctx);
    const site = ctx.get('Sec-Fetch-Site').toLowerCase();
    const origin = ctx.get('Origin');
    if (site === 'cross-site' || (origin !== '' && !isAllowed(ctx, origin, allowed))) {
      throw REJECTIONS.crossSite();
    }
  };
}

function isAllowed(ctx: RequestContext, origin: string, allowed: Set<string> | undefined): boolean {
  const given = normalise(origin);
  // The service's own origin (Koa 3's ctx.origin is the Origin header itself). Behind a proxy the host
  // comes from X-Forwarded-Host, which is why production requires ALLOWED_ORIGINS instead.
  return allowed ? allowed.has(given) : given === normalise(`${ctx.protocol}://${ctx.host}`);
}

function normalise(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.toLowerCase();
  }
}
