import { describe, expect, it } from 'vitest';
import { demoUpstream, DEMO_TOKEN } from '../src/demo-upstream.js';

describe('the demo upstream (UPSTREAM_BASE_URL unset)', () => {
  const upstream = demoUpstream();
  const post = (payload: Record<string, string | number>) =>
    upstream.post({ path: '/api/cotizaciones/update', payload, token: DEMO_TOKEN, idempotencyKey: 'k' });

  it('accepts a change to an id above 0, read as PHP reads it', async () => {
    await expect(post({ id: '12abc', field: 'estado', value: 'x' })).resolves.toEqual({ status: 200, body: { ok: true } });
    await expect(post({ id: 7, field: 'estado', value: 'x' })).resolves.toEqual({ status: 200, body: { ok: true } });
  });

  it('answers as the real API would for a record that does not exist', async () => {
    for (const id of ['0', '-3', 'abc', 0]) {
      await expect(post({ id, field: 'estado', value: 'x' })).resolves.toEqual({
        status: 200,
        body: { ok: false, error: { message: 'Registro no encontrado.' } },
      });
    }
  });

  it('keeps nothing of the calls it answered', async () => {
    await post({ id: 1, field: 'estado', value: 'x' });
    // Only the port's method: no record of calls for a long-running quick start to accumulate.
    expect(Object.keys(upstream)).toEqual(['post']);
  });
});
