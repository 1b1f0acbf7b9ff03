import { MESSAGES, SessionUnavailableError } from '@cotizaciones/core';

/** A request refused at the protocol level, before any use case runs. */
export class Rejection extends Error {
  override readonly name = 'Rejection';
  /** Headers the answer carries besides the contract's (405's `Allow`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: 400 | 403 | 404 | 405 | 413 | 503,
    readonly msg: string,
    options?: { cause?: unknown; headers?: Readonly<Record<string, string>> },
  ) {
    super(msg, options);
    this.headers = options?.headers ?? {};
  }
}

export const REJECTIONS = {
  methodNotAllowed: (allow: string) => new Rejection(405, 'Método no permitido.', { headers: { Allow: allow } }),
  tooLarge: (cause?: unknown) => new Rejection(413, 'Solicitud demasiado grande.', { cause }),
  malformed: (cause?: unknown) => new Rejection(400, 'Solicitud inválida.', { cause }),
  unavailable: (cause?: unknown) => new Rejection(503, MESSAGES.unavailable, { cause, headers: retryAfter(cause) }),
  notFound: () => new Rejection(404, 'No encontrado.'),
  crossSite: () => new Rejection(403, 'Origen no permitido.'),
} as const;

/** `Retry-After` when the session adapter turned the request away to stay within its bounds (PHP's lock waiters). */
function retryAfter(cause: unknown): Record<string, string> {
  const seconds = cause instanceof SessionUnavailableError ? cause.retryAfterSeconds : undefined;
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
}
