import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError, type Upstream } from '@cotizaciones/core';
import { forClaim, required, type UpstreamClaims } from './claims.js';

/** What the upstream was sent, as the far side saw it. */
export interface DeliveredRequest {
  readonly path: string;
  readonly payload: unknown;
  readonly token: string;
  readonly idempotencyKey: string;
}

export type UpstreamScenario =
  | { readonly status?: number; readonly json: unknown }
  | { readonly status?: number; readonly text: string; readonly contentType?: string }
  | { readonly drop: true }
  | { readonly reset: true }
  | { readonly hang: true }
  /** Headers at once, then one byte of body every `dripMs`, never finishing. */
  | { readonly dripMs: number };

export interface UpstreamHarness {
  /** An adapter whose time limit is `timeoutMs` and whose answers may be `maxResponseBytes` long. */
  readonly upstream: Upstream;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Scripts the following answers; the `drop`, `reset` and `dripMs` scenarios only under the `network` claim. */
  answer(scenario: UpstreamScenario): void;
  /**
   * The same adapter, with the same limits, aimed at an upstream whose connection is never
   * established (over HTTP: a loopback server that accepts TCP and never answers the TLS handshake).
   * Needed by the `network` claim.
   */
  stalledConnection?(): Upstream;
  delivered(): DeliveredRequest[];
  close(): Promise<void>;
}

/**
 * How late a timeout may come. Wide enough for a loaded 2-core machine (600 ms seen at load 12),
 * narrow enough to catch what it guards against: a limit per wait (a dribbling body held 60 s)
 * or a client's own connect timeout (undici's 10 s).
 */
const TIMEOUT_MARGIN_MS = 5_000;

/**
 * The Upstream port's contract, run against every adapter of it. `claims.network`: the adapter talks
 * over a connection, whose failures (never established, dropped, reset, a body that never ends) it
 * must turn into the port's errors within its time limit.
 */
export function testUpstream(name: string, createHarness: () => Promise<UpstreamHarness>, claims: UpstreamClaims = {}): void {
  describe(`Upstream contract: ${name}`, () => {
    let harness: UpstreamHarness;
    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(() => harness.close());

    const request = {
      path: '/api/cotizaciones/update',
      payload: { id: '12', field: 'estado', value: 'ñandú ✓' },
      token: 'tok-123',
      idempotencyKey: 'cli-20261125T010000000Z-a1b2c3:0df29df95b8214332be3d385f8085118:1',
    };

    it('delivers the path, the JSON payload, the token and the idempotency key, once', async () => {
      await harness.upstream.post(request);
      expect(harness.delivered()).toEqual([
        { path: request.path, payload: request.payload, token: 'tok-123', idempotencyKey: request.idempotencyKey },
      ]);
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
    ])('fails with invalid-body on %s, naming the HTTP status', async (_, scenario) => {
      harness.answer(scenario);
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('invalid-body'));
      await expect(harness.upstream.post(request)).rejects.toThrow(
        `upstream answered HTTP ${'status' in scenario ? scenario.status : 200} with a body that is not JSON`,
      );
    });

    it.each([
      ['an empty body', { status: 401, text: '' }],
      ['an HTML page', { status: 401, text: '<html>401 Authorization Required</html>', contentType: 'text/html' }],
    ])('returns a 401 with %s as the status alone, so the token can be refreshed and the change resent', async (_, scenario) => {
      harness.answer(scenario);
      await expect(harness.upstream.post(request)).resolves.toEqual({ status: 401, body: undefined });
    });

    it('fails with invalid-body, without reading it all, when the answer is larger than the limit', async () => {
      harness.answer({ text: `{"ok":true,"pad":"${'x'.repeat(harness.maxResponseBytes)}"}`, contentType: 'application/json' });
      await expect(harness.upstream.post(request)).rejects.toSatisfy(isUpstreamError('invalid-body'));
      harness.answer({ text: `{"ok":true,"pad":"${'x'.repeat(harness.maxResponseBytes - 100)}"}`, contentType: 'application/json' });
      await expect(harness.upstream.post(request)).resolves.toMatchObject({ body: { ok: true } });
    });

    it('fails with timeout when no answer comes in time, and does not retry', async () => {
      harness.answer({ hang: true });
      await expectTimeout(() => harness.upstream.post(request), harness.timeoutMs);
      expect(harness.delivered()).toHaveLength(1);
    });

    it('never puts the token in an error', async () => {
      harness.answer({ hang: true });
      const error: unknown = await harness.upstream.post(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('tok-123');
      expect(String(error)).not.toContain('tok-123');
    });

    forClaim('network', claims.network === true, () => {
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

      it('fails with timeout within the limit when the body keeps dripping and never ends', async () => {
        // A byte every sixth of the limit: a timer per wait would never fire.
        harness.answer({ dripMs: Math.max(10, Math.floor(harness.timeoutMs / 6)) });
        await expectTimeout(() => harness.upstream.post(request), harness.timeoutMs);
        expect(harness.delivered()).toHaveLength(1);
      });

      it('fails with timeout within the limit when the connection is never established', async () => {
        const stalled = required(harness, 'stalledConnection', 'network')();
        await expectTimeout(() => stalled.post(request), harness.timeoutMs);
      });

      it('never puts the token in an error when the connection drops', async () => {
        harness.answer({ drop: true });
        const error: unknown = await harness.upstream.post(request).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UpstreamError);
        expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('tok-123');
        expect(String(error)).not.toContain('tok-123');
      });
    });
  });
}

/** Fails with `timeout`, no sooner than the limit and no later than the limit plus a margin. */
async function expectTimeout(call: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  // Timed from before the call starts: its deadline starts inside it.
  const started = Date.now();
  await expect(call()).rejects.toSatisfy(isUpstreamError('timeout'));
  const took = Date.now() - started;
  expect(took).toBeGreaterThanOrEqual(timeoutMs - 5);
  expect(took).toBeLessThan(timeoutMs + TIMEOUT_MARGIN_MS);
}

function isUpstreamError(kind: UpstreamError['kind']) {
  return (error: unknown) => error instanceof UpstreamError && error.kind === kind;
}
