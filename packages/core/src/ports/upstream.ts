import { PortFailure } from '../failure.js';

/** JSON the service sends to the upstream quotation API. */
export type UpstreamPayload = Readonly<Record<string, string | number>>;

export interface UpstreamRequest {
  /** Path below the upstream base URL, e.g. `/api/cotizaciones/update`. */
  readonly path: string;
  readonly payload: UpstreamPayload;
  /** Bearer token; adapters send it and never echo it. */
  readonly token: string;
  /**
   * Sent as `Idempotency-Key`: one per distinct change, the same on every re-send of it, so an
   * upstream that honours it applies a change once however often it arrives.
   */
  readonly idempotencyKey: string;
}

export interface UpstreamReply {
  readonly status: number;
  /** The response body parsed as JSON, whatever the status code or content type; `undefined` for a 401 whose body is not JSON. */
  readonly body: unknown;
}

/** How much of an answer an upstream client reads, unless configured otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * The upstream's body is JSON whatever its status or content type; anything else is unusable —
 * except on a 401, whose status alone says the token was refused (the change was not applied, so
 * the core may refresh the token and resend): its body, if not JSON, is `undefined`.
 */
export function parseUpstreamBody(text: string, status: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (status === 401) return undefined;
    throw new UpstreamError('invalid-body', `upstream answered HTTP ${status} with a body that is not JSON (${text.length} chars)`);
  }
}

/** The failure of an answer larger than a client reads. */
export function upstreamTooLarge(maxBytes: number): UpstreamError {
  return new UpstreamError('invalid-body', `upstream answer larger than ${maxBytes} bytes`);
}

/** Connection errors that happen before a connection exists, so before any byte of a request was sent. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A client's connection error, by its system code: `unreachable` when nothing was sent, else `connection`. */
export function upstreamConnectionError(code: string, message: string): UpstreamError {
  return new UpstreamError(NOT_CONNECTED.has(code) ? 'unreachable' : 'connection', `${code}: ${message}`);
}

/** The upstream quotation API. */
export interface Upstream {
  /** Sends one POST, never retried. Fails only with {@link UpstreamError}. */
  post(request: UpstreamRequest): Promise<UpstreamReply>;
}

export type UpstreamErrorKind =
  /** No connection could be made (refused, name not resolved, no route): nothing was sent. */
  | 'unreachable'
  /** No answer within the time limit. */
  | 'timeout'
  /** Refused, reset or dropped before a whole answer arrived. */
  | 'connection'
  /** An answer whose body is not JSON (or too large to read). */
  | 'invalid-body';

const CODES = {
  unreachable: 'UPSTREAM_UNREACHABLE',
  timeout: 'UPSTREAM_TIMEOUT',
  connection: 'UPSTREAM_CONNECTION',
  'invalid-body': 'UPSTREAM_INVALID_BODY',
} as const;

/**
 * Why the upstream gave no usable answer. The change may or may not have been applied, except when
 * `kind` is `unreachable`: then nothing was sent.
 */
export class UpstreamError extends PortFailure {
  override readonly name = 'UpstreamError';
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CODES[kind], message, options);
  }
}
