import type { Reply } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/** The exact Content-Type string the PHP endpoints sent. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

const NO_CACHE = {
  'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0',
  Pragma: 'no-cache',
  Expires: '0',
} as const;

/** The contract's headers of a JSON answer the HTTP server gives itself, outside Koa's chain (so `nosniff` too). */
export const SERVER_JSON_HEADERS = { 'Content-Type': JSON_CONTENT_TYPE, ...NO_CACHE, 'X-Content-Type-Options': 'nosniff' } as const;

/** Answers `reply` with the contract's headers (`nosniff` is the request frame's, on every answer). */
export function replyJson(ctx: RequestContext, status: number, reply: Reply): void {
  replyJsonText(ctx, status, JSON.stringify(reply));
}

/** Answers JSON already serialized, with the same headers as {@link replyJson}. */
export function replyJsonText(ctx: RequestContext, status: number, json: string): void {
  ctx.status = status;
  // Set before the body, as a header to keep the exact casing: Koa then infers no type (a MIME lookup per answer).
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = json;
  ctx.set(NO_CACHE);
}
