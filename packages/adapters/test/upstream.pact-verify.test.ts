/**
 * The committed pact, verified the way the upstream API's team verifies it (see docs/testing.md,
 * "A consumer contract, for the upstream API's team"), here against a reference provider: the stub upstream scripted with the
 * behaviour each interaction's provider states describe. It shows that the file is verifiable
 * as written — matchers, states, the token replaced by a real one — and that a provider which
 * breaks one answer is caught.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Verifier } from '@pact-foundation/pact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStubUpstream, type ReceivedRequest, type StubAnswer, type StubUpstreamServer } from '../src/testing/index.js';

const PACT = fileURLToPath(new URL('../pacts/cotizaciones-service-cotizaciones-upstream-api.json', import.meta.url));
/** The token the provider's own identity service would issue: put in place of the pact's example token. */
const ISSUED = 'provider-issued-token';

/** A provider as the pact describes it; `broken` changes one answer, to show verification catches it. */
function referenceProvider(broken: boolean) {
  let expired = new Set<string>();
  const answer = (request: ReceivedRequest): StubAnswer => {
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (expired.has(token) || ![ISSUED, 'tok-fresh', 'tok-expired'].includes(token)) {
      return { status: 401, json: { ok: false, error: { message: 'Token expirado.' } } };
    }
    const body = JSON.parse(request.body) as Record<string, unknown>;
    if (request.path === '/api/cotizaciones/update') {
      if (body.id === 0) return { json: { ok: false, error: { message: 'No existe la cotización 0.' } } };
      if (typeof body.id === 'string' && !/^\d+$/.test(body.id)) return { json: { ok: false, error: { message: 'El id no es válido.' } } };
      if (body.id === '11') return { json: { ok: false } };
      return { json: { ok: true } };
    }
    if (request.path === '/api/cotizaciones/items/update') {
      if (body.value === '-1') return { json: { ok: false, error: { message: broken ? '' : 'Cantidad inválida.' } } };
      return { json: { ok: true } };
    }
    return { status: 404, json: { ok: false, error: { message: 'No encontrado.' } } };
  };
  return {
    answer,
    /** Every provider state the pact names, each a setup step for this provider. */
    stateHandlers() {
      const pact = JSON.parse(readFileSync(PACT, 'utf8')) as { interactions: Array<{ providerStates?: Array<{ name: string }> }> };
      const names = new Set(pact.interactions.flatMap((interaction) => (interaction.providerStates ?? []).map((state) => state.name)));
      return Object.fromEntries(
        [...names].map((name) => [
          name,
          () => {
            const token = /^the token (\S+) has expired$/.exec(name)?.[1];
            expired = token ? new Set([...expired, token]) : expired;
            return Promise.resolve();
          },
        ]),
      );
    },
    reset() {
      expired = new Set();
    },
  };
}

describe('the committed pact, verified against a reference provider', () => {
  let stub: StubUpstreamServer;
  beforeEach(async () => {
    stub = await startStubUpstream();
  });
  afterEach(() => stub.close());

  async function verify(broken: boolean): Promise<void> {
    const provider = referenceProvider(broken);
    stub.answer(provider.answer);
    await new Verifier({
      provider: 'cotizaciones-upstream-api',
      providerBaseUrl: stub.url,
      pactUrls: [PACT],
      logLevel: 'error',
      stateHandlers: provider.stateHandlers(),
      beforeEach: () => {
        provider.reset();
        return Promise.resolve();
      },
      // The pact's example token stands for "a valid token": the provider puts one of its own in.
      requestFilter: (req, _res, next) => {
        if (req.headers.authorization === 'Bearer tok-valid') req.headers.authorization = `Bearer ${ISSUED}`;
        next();
      },
    }).verifyProvider();
  }

  it('passes for a provider that answers as the pact says', async () => {
    await verify(false);
    expect(stub.received.length).toBeGreaterThanOrEqual(10);
  });

  it('fails for a provider that refuses a change with an empty message', async () => {
    await expect(verify(true)).rejects.toThrow();
  });
});
