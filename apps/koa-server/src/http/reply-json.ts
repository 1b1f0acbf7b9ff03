import type { Context } from 'koa';
import type { Reply } from '@cotizaciones/core';

/** The exact Content-Type string the PHP endpoints sent. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

const NO_CACHE = {
  'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0',
  Pragma: 'no-cache',
  Expires: '0',
} as const;

/** Answers `reply` with the contract's four headers. */
export function replyJson(ctx: Context, status: number, reply: Reply): void {
  ctx.status = status;
  ctx.body = JSON.stringify(reply);
  // Set after the body: Koa would otherwise infer a type; set as a header to keep the exact casing.
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.set(NO_CACHE);
}
