import { phpIntCast, type Upstream, type UpstreamPayload } from '@cotizaciones/core';

export const DEMO_TOKEN = 'demo-token';

/**
 * Stands in for the quotation API when UPSTREAM_BASE_URL is unset (never in
 * production): accepts every change to an id above 0, and answers as the real
 * API would for anything else. Keeps nothing per call: a quick start left
 * running must not grow (the tests' in-memory upstream records every call).
 */
export function demoUpstream(): Upstream {
  return {
    post: ({ payload }) => Promise.resolve({ status: 200, body: demoAnswer(payload) }),
  };
}

function demoAnswer(payload: UpstreamPayload): unknown {
  const id = typeof payload.id === 'string' ? phpIntCast(payload.id) : BigInt(payload.id ?? 0);
  return id > 0n ? { ok: true } : { ok: false, error: { message: 'Registro no encontrado.' } };
}
