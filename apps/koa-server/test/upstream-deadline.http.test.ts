import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStubUpstream, type StubUpstreamServer } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

const FIELD_FAILED = '{"ok":false,"msg":"No se pudo actualizar la cotización."}';
const LIMIT_MS = 400;

// UPSTREAM_TIMEOUT_MS bounds the whole upstream call, with either client: an upstream that sends
// its headers and then one byte at a time, or whose connection is never set up, fails at the limit.
describe.each(['got', 'undici'])('UPSTREAM_CLIENT=%s', (client) => {
  let stalled: StubUpstreamServer;
  beforeAll(async () => {
    stalled = await startStubUpstream();
  });
  afterAll(() => stalled.close());

  async function expectFailureAtTheLimit(svc: TestService): Promise<void> {
    const cookie = await svc.signIn();
    const started = Date.now();
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '5', field: 'estado', value: 'x' }), { cookie }), 200, FIELD_FAILED);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(LIMIT_MS - 5);
    // Only bounds a hang (the upstream never ends its answer): a busy machine's late timers must not fail it.
    expect(took).toBeLessThan(LIMIT_MS + 5_000);
    expect(await svc.rows()).toHaveLength(0);
    await svc.close();
  }

  it('answers the failure message at UPSTREAM_TIMEOUT_MS when the body drips one byte every 50 ms', async () => {
    const svc = await startService({ UPSTREAM_CLIENT: client, UPSTREAM_TIMEOUT_MS: String(LIMIT_MS) });
    svc.stub.answer({ dripMs: 50 });
    await expectFailureAtTheLimit(svc);
  });

  it('answers the failure message at UPSTREAM_TIMEOUT_MS when the connection is never set up', async () => {
    const svc = await startService({
      UPSTREAM_CLIENT: client,
      UPSTREAM_TIMEOUT_MS: String(LIMIT_MS),
      UPSTREAM_BASE_URL: stalled.stalledConnectUrl,
    });
    await expectFailureAtTheLimit(svc);
  });
});
