import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MESSAGES, SessionUnavailableError, type Outcome, type Reply } from '@cotizaciones/core';
import type { RequestContext } from './request-state.js';

/**
 * The one home of every HTTP answer the service sends: its headers, the messages of the answers HTTP
 * gives itself, the bodies, and the writers for each place an answer is made (a Koa route, Node's
 * response outside Koa, a socket the parser refused). Messages the core owns (`MESSAGES`) are taken
 * from it, never spelled here again. No other file sets a header, a status or a body
 * (test/answers-home.test.ts checks the sources).
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

/**
 * A use case's outcome as the contract answers it: the caller could not be identified, the 503 with
 * the adapter's retry hint if it gave one; any other outcome, its reply with 200.
 */
export function replyOutcome(ctx: RequestContext, { kind, reply, cause }: Outcome): void {
  if (kind !== 'session-unavailable') {
    replyJson(ctx, 200, reply);
    return;
  }
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
function refusalBytes(status: RefusalStatus): string {
  const [reason] = REFUSALS[status];
  const body = refusalBody(status);
  const headers = Object.entries({ ...SERVER_JSON_HEADERS, Connection: 'close' }).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${status} ${reason}`, ...headers, `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
}

/** Refuses on the socket itself, when Node has no response object (a parser refusal), and ends it. */
export function writeSocketRefusal(socket: Socket, status: RefusalStatus): void {
  socket.end(refusalBytes(status));
}

/**
 * The headers every answer of Koa's chain carries, JSON or not: `nosniff` (read as the type it
 * declares, never sniffed by a browser) and the request's id.
 */
export function markAnswer(ctx: RequestContext, requestId: string): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Request-Id', requestId);
}

/** An answer that depends on where the request came from (the cross-site check): caches keep one per site. */
export function varyBySite(ctx: RequestContext): void {
  ctx.set('Vary', 'Origin, Sec-Fetch-Site');
}

/** Node ends the connection once this answer is flushed. */
export function closeAfterAnswer(ctx: RequestContext): void {
  ctx.set('Connection', 'close');
}

/** Whether Node keeps the connection of an answer not yet sent (outside Koa's chain: the HTTP server's pipelining). */
export function setConnection(res: ServerResponse, connection: 'close' | 'keep-alive'): void {
  res.setHeader('Connection', connection);
}

/** The OpenAPI document, serialized once. */
export function replyOpenApi(ctx: RequestContext, json: string): void {
  ctx.type = 'application/json';
  ctx.body = json;
}

/** The metrics in the registry's exposition format. */
export function replyMetrics(ctx: RequestContext, contentType: string, text: string): void {
  ctx.type = contentType;
  ctx.body = text;
}

/** `/metrics` to a caller without the token: plain text, no detail. */
export function replyMetricsUnauthorized(ctx: RequestContext): void {
  ctx.status = 401;
  ctx.body = 'unauthorized\n';
}

/** A development helper's rows, as Koa serializes a value (JSON). */
export function replyRows(ctx: RequestContext, rows: readonly unknown[]): void {
  ctx.body = rows;
}
