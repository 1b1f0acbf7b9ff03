import type { Middleware } from 'koa';
import type { Metrics } from '../metrics.js';
import { outcomeLabel } from './outcome-label.js';

/** Counts and times the requests to the endpoints (`paths` maps each path to its metric label). */
export function observeRequests(metrics: Metrics, paths: ReadonlyMap<string, string>): Middleware {
  return async (ctx, next) => {
    const endpoint = paths.get(ctx.path);
    if (!endpoint) {
      await next();
      return;
    }
    const end = metrics.requestSeconds.startTimer({ endpoint });
    try {
      await next();
    } finally {
      end();
      const outcome = outcomeLabel(ctx) ?? 'rejected';
      metrics.requests.inc({ endpoint, method: ctx.method, outcome });
      if (outcome === 'unavailable') metrics.sessionStoreErrors.inc();
    }
  };
}
