import type { Upstream } from '@cotizaciones/core';

/** What every HTTP upstream adapter is configured with. */
export interface UpstreamClientOptions {
  /** e.g. `https://api.example.com`; the request path is appended to it. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Sockets per upstream host. */
  readonly maxSockets?: number;
  /** Larger answers are not read to the end: an `invalid-body` failure. Default 1 MiB. */
  readonly maxResponseBytes?: number;
}

export interface ClosableUpstream extends Upstream {
  /** Closes the idle keep-alive sockets. */
  close(): void;
}
