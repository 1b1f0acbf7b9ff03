import { trace, type Span } from '@opentelemetry/api';
import { spanSettled } from '@cotizaciones/runtime';
import type { Session } from '@cotizaciones/core';
import type { SessionBinding } from './session-binding.js';

/**
 * Where the sessions live, as a span says it: never an id or a cookie. `cookie`, a record backend's name
 * (`redis`), or a PHP save handler entry's mode (`php files`).
 */
export type SessionMode = string;

/**
 * The session binding with its reads as spans: the store's record loaded (Redis, on first use),
 * and the user asked for (the signed cookie, or the PHP app's store), each with the mode and what
 * it found: `signed-in`, `signed-out`, or `unavailable`.
 */
export function tracedSessions(binding: SessionBinding, mode: SessionMode): SessionBinding {
  const tracer = trace.getTracer('cotizaciones');
  const { load } = binding;
  return {
    ...binding,
    load:
      load &&
      ((ctx) =>
        tracer.startActiveSpan('session load', { attributes: { 'cotizaciones.session.mode': mode } }, (span) => ended(span, load(ctx)))),
    sessionFor(ctx) {
      const session = binding.sessionFor(ctx);
      const traced: Session = {
        ...session,
        currentUser: () =>
          tracer.startActiveSpan('session read', { attributes: { 'cotizaciones.session.mode': mode } }, (span) =>
            ended(
              span,
              session.currentUser().then((user) => {
                span.setAttribute('cotizaciones.session.outcome', user ? 'signed-in' : 'signed-out');
                return user;
              }),
            ),
          ),
      };
      return traced;
    },
  };
}

/** Settled as any port's span; a store that could not be read is also said as the read's outcome. */
function ended<T>(span: Span, work: Promise<T>): Promise<T> {
  return spanSettled(
    span,
    work.catch((error: unknown) => {
      span.setAttribute('cotizaciones.session.outcome', 'unavailable');
      throw error;
    }),
  );
}
