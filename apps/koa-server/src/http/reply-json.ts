import type { Reply } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/** The exact Content-Type string the PHP endpoints sent. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

const NO_CACHE = {
  'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0',
  Pragma: 'no-cache',
  Expires: '0',
} as const;

/** Answers `reply` with the contract's headers (`nosniff` is the request frame's, on every answer). */
export function replyJson(ctx: RequestContext, status: number, reply: Reply): void {
  ctx.status = status;
  // Set before the body, as a header to keep the exact casing: Koa then infers no type (a MIME lookup per answer).
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = JSON.stringify(reply);
  ctx.set(NO_CACHE);
}
