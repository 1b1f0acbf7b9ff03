import type { Log } from '@cotizaciones/runtime';

/** A malformed, cut-off or timed-out request: the client's doing, not the server's. */
export function isClientProtocolError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('HPE_') || CLIENT_CODES.has(code));
}
const CLIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_HTTP_REQUEST_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE']);

/** For Koa's and the HTTP server's error events: client protocol errors at debug, anything else at error. */
export function logHttpError(log: Pick<Log, 'debug' | 'error'>, error: unknown, msg: string): void {
  if (isClientProtocolError(error)) log.debug({ err: error }, msg);
  else log.error({ err: error }, msg);
}
