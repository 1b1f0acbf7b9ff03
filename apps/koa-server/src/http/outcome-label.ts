import type { Context } from 'koa';
import type { Outcome } from '@cotizaciones/core';

export type OutcomeLabel = 'ok' | 'upstream_error' | 'not_authenticated' | 'rejected' | 'unavailable' | 'error';

/** What became of a request, in the few words the metrics and the request log use. */
export function outcomeLabel(ctx: Context): OutcomeLabel | undefined {
  const outcome = ctx.state.outcome as Outcome | undefined;
  if (outcome) {
    switch (outcome.kind) {
      case 'ok':
        return 'ok';
      case 'not-authenticated':
        return 'not_authenticated';
      case 'invalid-params':
        return 'rejected';
      default:
        return 'upstream_error';
    }
  }
  if (ctx.status === 503) return 'unavailable';
  if (ctx.status >= 500) return 'error';
  return ctx.state.rejection ? 'rejected' : undefined;
}
