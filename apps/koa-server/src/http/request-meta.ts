import { isIP } from 'node:net';
import { cutText } from '@cotizaciones/adapters';
import type { RequestMeta } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/** Longest user agent recorded whatever the store; real ones are well under 300 characters. */
export const USER_AGENT_MAX = 512;

/**
 * What the audit records about the request, from headers the client controls, so checked first:
 * the client IP is an IP address or absent (through TRUST_PROXY proxies, the address the outermost
 * of them saw: trusted-proxies.ts), the user agent is cut to {@link USER_AGENT_MAX} characters with the
 * contract's marker (the SQL store cuts it again, the same way, to its column's width), and the
 * request id was validated when it was assigned.
 */
export function requestMeta(ctx: RequestContext): RequestMeta {
  const userAgent = ctx.get('User-Agent');
  return {
    requestId: ctx.state.requestId,
    clientIp: clientIp(ctx),
    userAgent: userAgent === '' ? undefined : cutText(userAgent, { maxCharacters: USER_AGENT_MAX }),
  };
}

/** The client's address (through TRUST_PROXY proxies, the address the outermost of them saw), or absent if it is not an IP address. */
export function clientIp(ctx: RequestContext): string | undefined {
  const ip = ctx.ip;
  return isIP(ip) === 0 ? undefined : ip;
}
