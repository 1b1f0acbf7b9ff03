/** JSON the service sends to the upstream quotation API. */
export type UpstreamPayload = Readonly<Record<string, string | number>>;

export interface UpstreamRequest {
  /** Path below the upstream base URL, e.g. `/api/cotizaciones/update`. */
  readonly path: string;
  readonly payload: UpstreamPayload;
  /** Bearer token; adapters send it and never echo it. */
  readonly token: string;
}

export interface UpstreamReply {
  readonly status: number;
  /** The response body parsed as JSON, whatever the status code or content type; `undefined` for a 401 whose body is not JSON. */
  readonly body: unknown;
}

/** The upstream quotation API. */
export interface Upstream {
  /** Sends one POST, never retried. Fails only with {@link UpstreamError}. */
  post(request: UpstreamRequest): Promise<UpstreamReply>;
}

export type UpstreamErrorKind =
  /** No answer within the time limit. */
  | 'timeout'
  /** Refused, reset or dropped before a whole answer arrived. */
  | 'connection'
  /** An answer whose body is not JSON (or too large to read). */
  | 'invalid-body';

/** Why the upstream gave no usable answer. The change may or may not have been applied. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
