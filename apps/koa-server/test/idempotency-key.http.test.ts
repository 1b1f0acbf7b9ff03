import { afterEach, describe, expect, it } from 'vitest';
import { FIELD_PATH, ITEM_PATH, form, startService, type TestService } from './support/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The contract's "Upstream": every call carries Idempotency-Key, one per change, never chosen by a client.
describe('Idempotency-Key on the upstream call', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  async function service(env: Record<string, string> = {}): Promise<TestService> {
    const svc = await startService(env);
    cleanup.push(() => svc.close());
    return svc;
  }
  const keys = (svc: TestService) => svc.stub.received.map((request) => request.headers['idempotency-key']);

  it('is the request id the service made, a new one for each change, on both endpoints', async () => {
    const svc = await service();
    const cookie = await svc.signIn();
    const answers = [
      await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), { cookie }),
      await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), { cookie }),
      await svc.post(ITEM_PATH, form({ id: '3', delete: '' }), { cookie }),
    ];
    expect(keys(svc)).toEqual(answers.map((answer) => answer.headers.get('x-request-id')));
    expect(keys(svc).every((key) => UUID.test(key as string))).toBe(true);
    expect(new Set(keys(svc)).size).toBe(3);
  });

  it('is never an id a client sent straight to the service (TRUST_PROXY unset): that one is ignored', async () => {
    const svc = await service();
    const cookie = await svc.signIn();
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      answers.push(
        await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), {
          cookie,
          headers: { 'x-request-id': 'chosen-by-client' },
        }),
      );
    }
    expect(keys(svc)).toEqual(answers.map((answer) => answer.headers.get('x-request-id')));
    expect(keys(svc).every((key) => UUID.test(key as string))).toBe(true);
    expect(keys(svc)[0]).not.toBe(keys(svc)[1]);
  });

  it('is the request id a trusted proxy set (TRUST_PROXY=127.0.0.1, the peer here)', async () => {
    const svc = await service({ TRUST_PROXY: '127.0.0.1' });
    const cookie = await svc.signIn();
    await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), {
      cookie,
      headers: { 'x-request-id': '0f3c9a7d5e2b41c8a6d4e2f1b3c5d7e9' },
    });
    expect(keys(svc)).toEqual(['0f3c9a7d5e2b41c8a6d4e2f1b3c5d7e9']);
  });

  it('is the request id whoever connects sent, with a bare count outside production (TRUST_PROXY=1)', async () => {
    const svc = await service({ TRUST_PROXY: '1' });
    const cookie = await svc.signIn();
    await svc.post(FIELD_PATH, form({ id: '12', field: 'estado', value: 'x' }), {
      cookie,
      headers: { 'x-request-id': 'chosen-by-client' },
    });
    expect(keys(svc)).toEqual(['chosen-by-client']);
  });
});
