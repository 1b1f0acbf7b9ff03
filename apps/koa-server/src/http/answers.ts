import type { ServerResponse } from 'node:http';
import { MESSAGES, SessionUnavailableError, type Reply } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/**
 * The one home of the contract's HTTP answer: its headers, the messages of the answers HTTP gives
 * itself, the JSON body, and the writers for each place an answer is made (a Koa route, Node's
 * response outside Koa, a socket the parser refused). Messages the core owns (`MESSAGES`) are taken
 * from it, never spelled here again.
 */

/** The exact Content-Type string the PHP endpoints sent. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8';

/** The PHP endpoints' no-cache headers, on every JSON answer. */
export const NO_CACHE = {
  'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0',
  Pragma: 'no-cache',
  Expires: '0',
} as const;

/** The contract's headers of a JSON answer the HTTP server gives itself, outside Koa's chain (so `nosniff` too). */
export const SERVER_JSON_HEADERS = { 'Content-Type': JSON_CONTENT_TYPE, ...NO_CACHE, 'X-Content-Type-Options': 'nosniff' } as const;

/** What HTTP answers itself, by status: the reason phrase and the message (`{"ok":false,"msg":…}`). */
export const REFUSALS = {
  400: ['Bad Request', 'Solicitud inválida.'],
  403: ['Forbidden', 'Origen no permitido.'],
  404: ['Not Found', 'No encontrado.'],
  405: ['Method Not Allowed', 'Método no permitido.'],
  408: ['Request Timeout', 'Tiempo de espera agotado.'],
  413: ['Payload Too Large', 'Solicitud demasiado grande.'],
  431: ['Request Header Fields Too Large', 'Encabezados demasiado grandes.'],
  // An unexpected error: its cause goes to the server log only.
  500: ['Internal Server Error', 'Error interno.'],
  503: ['Service Unavailable', MESSAGES.unavailable],
  505: ['HTTP Version Not Supported', 'Versión de HTTP no soportada.'],
} as const satisfies Record<number, readonly [reason: string, msg: string]>;
export type RefusalStatus = keyof typeof REFUSALS;

/** The message HTTP answers with `status`. */
export const refusalMessage = (status: RefusalStatus): string => REFUSALS[status][1];

/** The JSON body of a refusal, serialized once per status. */
const REFUSAL_BODIES = new Map(
  Object.entries(REFUSALS).map(([status, [, msg]]) => [Number(status), JSON.stringify({ ok: false, msg } satisfies Reply)]),
);
const refusalBody = (status: RefusalStatus): string => REFUSAL_BODIES.get(status)!;

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

/** A refusal inside Koa's chain: its status, message and any headers of its own (405's `Allow`). */
export function replyRefusal(ctx: RequestContext, status: RefusalStatus, headers: Readonly<Record<string, string>> = {}): void {
  replyJsonText(ctx, status, refusalBody(status));
  ctx.set(headers);
}

/** The caller could not be identified: the use case's reply as the contract's 503, with the adapter's retry hint if it gave one. */
export function replySessionUnavailable(ctx: RequestContext, reply: Reply, cause: unknown): void {
  replyJson(ctx, 503, reply);
  ctx.set(retryAfter(cause));
}

/** `Retry-After` when the session adapter turned the request away to stay within its bounds (PHP's lock waiters). */
function retryAfter(cause: unknown): Record<string, string> {
  const seconds = cause instanceof SessionUnavailableError ? cause.retryAfterSeconds : undefined;
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
}

/** A JSON answer given outside Koa's chain, on Node's response (the probes ahead of the line, the server's refusals). */
export function writeJson(res: ServerResponse, status: number, json: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { ...SERVER_JSON_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(json) }).end(json);
}

/** A refusal outside Koa's chain, which closes its connection (a request without Host, the full line's 503). */
export function writeRefusal(res: ServerResponse, status: RefusalStatus, headers: Readonly<Record<string, string>> = {}): void {
  writeJson(res, status, refusalBody(status), { Connection: 'close', ...headers });
}

/** The whole refusal as bytes for a socket, when Node has no response object (a parser refusal). */
export function refusalBytes(status: RefusalStatus): string {
  const [reason] = REFUSALS[status];
  const body = refusalBody(status);
  const headers = Object.entries({ ...SERVER_JSON_HEADERS, Connection: 'close' }).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${status} ${reason}`, ...headers, `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
}
