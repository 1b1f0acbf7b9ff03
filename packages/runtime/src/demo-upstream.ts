import { phpIntCast } from '@cotizaciones/core';
import { inMemoryUpstream, type InMemoryUpstream } from '@cotizaciones/adapters';

export const DEMO_TOKEN = 'demo-token';

/**
 * Stands in for the quotation API when UPSTREAM_BASE_URL is unset (never in
 * production): accepts every change to an id above 0, and answers as the real
 * API would for anything else.
 */
export function demoUpstream(): InMemoryUpstream {
  return inMemoryUpstream({
    respond: ({ payload }) => {
      const id = typeof payload.id === 'string' ? phpIntCast(payload.id) : BigInt(payload.id ?? 0);
      if (id <= 0n) return { json: { ok: false, error: { message: 'Registro no encontrado.' } } };
      return { json: { ok: true } };
    },
  });
}
