import type { Metrics } from '../metrics.js';
import { METRIC_OUTCOME, outcomeOf } from './request-outcome.js';
import type { RequestMiddleware } from './request-state.js';

/** Counts and times the requests to the endpoints (`paths` maps each path to its metric label). */
export function observeRequests(metrics: Metrics, paths: ReadonlyMap<string, string>): RequestMiddleware {
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
      const outcome = outcomeOf(ctx) ?? 'rejected';
      metrics.requests.inc({ endpoint, method: ctx.method, outcome: METRIC_OUTCOME[outcome] });
      if (outcome === 'unavailable') metrics.sessionStoreErrors.inc();
    }
  };
}
