import { SessionUnavailableError } from '@cotizaciones/core';
import type { Metrics } from '../metrics.js';
import { METRIC_OUTCOME } from './request-outcome.js';
import { outcomeOf } from './request-state.js';
import type { RequestContext } from './request-state.js';

/**
 * Counts and times the requests to the endpoints (`paths` maps each path to its metric label): the
 * whole answer, and the service's own share of it (less what the use case waited on the upstream and
 * the token source, added up in `ctx.state.waitedMs`).
 * The labelled series are looked up once and kept: prom-client would hash the labels on every call.
 */
export function observeRequests(metrics: Metrics, paths: ReadonlyMap<string, string>): (ctx: RequestContext, durationMs: number) => void {
  const endpoints = [...new Set(paths.values())];
  const timers = new Map(endpoints.map((endpoint) => [endpoint, metrics.requestSeconds.labels(endpoint)]));
  const ownShares = new Map(endpoints.map((endpoint) => [endpoint, metrics.serviceSeconds.labels(endpoint)]));
  const counters = new Map<string, ReturnType<Metrics['requests']['labels']>>();
  // Every endpoint's POST series exist from the start, at 0: an error ratio is then 0, not absent,
  // before the first failure (the objectives' recording rules divide by them).
  for (const endpoint of endpoints)
    for (const outcome of new Set(Object.values(METRIC_OUTCOME))) metrics.requests.labels(endpoint, 'POST', outcome).inc(0);
  return (ctx, durationMs) => {
    const endpoint = paths.get(ctx.path);
    if (!endpoint) return;
    timers.get(endpoint)?.observe(durationMs / 1000);
    ownShares.get(endpoint)?.observe(Math.max(0, durationMs - (ctx.state.waitedMs ?? 0)) / 1000);
    const outcome = outcomeOf(ctx) ?? 'rejected';
    const key = `${endpoint} ${ctx.method} ${outcome}`;
    let counter = counters.get(key);
    // Bounded: the methods are Node's known ones (its parser refuses others), the outcomes a fixed list.
    if (!counter) counters.set(key, (counter = metrics.requests.labels(endpoint, ctx.method, METRIC_OUTCOME[outcome])));
    counter.inc();
    if (outcome === 'session-unavailable') {
      const cause = ctx.state.cause instanceof SessionUnavailableError ? ctx.state.cause.reason : 'unreachable';
      metrics.sessionStoreErrors.inc({ cause });
    }
  };
}
