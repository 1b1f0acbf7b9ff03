import { UpstreamError, type Upstream } from '@cotizaciones/core';

export interface UpstreamWithCutoff {
  readonly upstream: Upstream;
  /** Gives up every call still waiting, and any later one, as an upstream timeout. */
  cut(): void;
}

/**
 * Used at a stop's time limit: each request still waiting on the upstream gets the contract's
 * failure answer (as for an upstream timeout) instead of a cut connection, which the user would
 * see as an error page and nginx would send again to another instance (deploy/cotizaciones-proxy.conf).
 */
export function upstreamWithCutoff(inner: Upstream): UpstreamWithCutoff {
  // One reject per call waiting: a shared never-settling promise raced by every call would keep them all.
  const waiting = new Set<(error: UpstreamError) => void>();
  let isCut = false;
  const stopped = () => new UpstreamError('timeout', 'the service stopped before the upstream answered');
  return {
    upstream: {
      post(request) {
        if (isCut) return Promise.reject(stopped());
        return new Promise((resolve, reject) => {
          waiting.add(reject);
          inner.post(request).then(
            (reply) => {
              waiting.delete(reject);
              resolve(reply);
            },
            (error: Error) => {
              waiting.delete(reject);
              reject(error);
            },
          );
        });
      },
    },
    cut() {
      isCut = true;
      for (const reject of waiting) reject(stopped());
      waiting.clear();
    },
  };
}
