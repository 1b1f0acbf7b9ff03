import { trace } from '@opentelemetry/api';
import type { TokenSource } from '@cotizaciones/core';
import { spanSettled } from './span-settled.js';

/** A token source that fetches (OAuth2) with each fetch as a span: its kind, and the failure's code; never the token. */
export function tracedTokens(tokens: TokenSource, kind: string): TokenSource {
  const tracer = trace.getTracer('cotizaciones');
  const refresh = tokens.refresh?.bind(tokens);
  const attributes = { 'cotizaciones.token.source': kind };
  return {
    token: (user) => tracer.startActiveSpan('token', { attributes }, (span) => spanSettled(span, tokens.token(user))),
    ...(refresh && {
      refresh: (user, rejected) =>
        tracer.startActiveSpan('token refresh', { attributes }, (span) => spanSettled(span, refresh(user, rejected))),
    }),
  };
}
