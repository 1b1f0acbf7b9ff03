import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError, type Upstream } from '@cotizaciones/core';

/** What the upstream was sent, as the far side saw it. */
export interface DeliveredRequest {
  readonly path: string;
  readonly payload: unknown;
  readonly token: string;
}

export type UpstreamScenario =
  | { readonly status?: number; readonly json: unknown }
  | { readonly status?: number; readonly text: string; readonly contentType?: string }
  | { readonly drop: true }
  | { readonly reset: true }
  | { readonly hang: true };

export interface UpstreamHarness {
  /** An adapter whose time limit is `timeoutMs` and whose answers may be `maxResponseBytes` long. */
  readonly upstream: Upstream;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  answer(scenario: UpstreamScenario): void;
  delivered(): DeliveredRequest[];
  close(): Promise<void>;
}

/** The Upstream port's contract, run against every adapter of it. */
export function testUpstream(name: string, createHarness: () => Promise<UpstreamHarness>): void {
  describe(`Upstream contract: ${name}`, () => {
    let harness: UpstreamHarness;
    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(() => harness.close());

    const request = { path: '/api/cotizaciones/update', payload: { id: '12', field: 'estado', value: 'ñandú ✓' }, token: 'tok-123' };

    it('delivers the path, the JSON payload and the token, once', async () => {
      await harness.upstream.post(request);
      expect(harness.delivered()).toEqual([{ path: request.path, payload: request.payload, token: 'tok-123' }]);
    });

    it('returns the status and the parsed body', async () => {
      harness.answer({ json: { ok: true, extra: [1] } });
      await expect(harness.upstream.post(request)).resolves.toEqual({ status: 200, body: { ok: true, extra: [1] } });
    });

    it('reads the body as JSON whatever the status code', async () => {
      harness.answer({ status: 500, json: { ok: false, error: { message: 'Falló' } } });
      await expect(harness.upstream.post(request)).resolves.toEqual({ status: 500, body: { ok: false, error: { message: 'Falló' } } });
    });

    it('reads JSON served as text/plain', async () => {
      harness.answer({ text: '{"ok":true}', contentType: 'text/plain' });
      await expect(harness.upstream.post(request)).resolves.toEqual({ status: 200, body: { ok: true } });
    });

    it('returns non-object JSON as it is', async () => {
      harness.answer({ json: [true] });
      await expect(harness.upstream.post(request)).resolves.toEqual({ status: 200, body: [true] });
    });

    it.each([
      ['an HTML error page', { status: 500, text: '<html><body>Internal Server Error</body></html>', contentType: 'text/html' }],
      ['a 200 that is not JSON', { text: 'OK' }],
      ['an empty body', { text: '' }],
    ])('fails with invalid-body on %s', async (_, scenario) => {
      harness.answer(scenario);
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('invalid-body'));
    });

    it('fails with connection when the connection drops, and does not retry', async () => {
      harness.answer({ drop: true });
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('connection'));
      expect(harness.delivered()).toHaveLength(1);
    });

    it('fails with connection when the connection resets in the middle of the answer', async () => {
      harness.answer({ reset: true });
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('connection'));
      expect(harness.delivered()).toHaveLength(1);
    });

    it('fails with invalid-body, without reading it all, when the answer is larger than the limit', async () => {
      harness.answer({ text: `{"ok":true,"pad":"${'x'.repeat(harness.maxResponseBytes)}"}`, contentType: 'application/json' });
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('invalid-body'));
      harness.answer({ text: `{"ok":true,"pad":"${'x'.repeat(harness.maxResponseBytes - 100)}"}`, contentType: 'application/json' });
      await expect(harness.upstream.post(request)).resolves.toMatchObject({ body: { ok: true } });
    });

    it('fails with timeout when no answer comes in time, and does not retry', async () => {
      harness.answer({ hang: true });
      const started = Date.now();
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('timeout'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(harness.timeoutMs - 5);
      expect(harness.delivered()).toHaveLength(1);
    });

    it('never puts the token in an error', async () => {
      harness.answer({ drop: true });
      const error: unknown = await harness.upstream.post(request).catch((e: unknown) => e);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('tok-123');
      expect(String(error)).not.toContain('tok-123');
    });
  });
}

function isUpstreamError(kind: UpstreamError['kind']) {
  return (error: unknown) => error instanceof UpstreamError && error.kind === kind;
}
