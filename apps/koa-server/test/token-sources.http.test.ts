import { describe, expect, it } from 'vitest';
import { startStubTokenEndpoint } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, form, startService } from './support/service.js';

describe('upstream token from OAuth2 client credentials', () => {
  it('sends the issued token, reuses it, and after a 401 refreshes and resends exactly once', async () => {
    const endpoint = await startStubTokenEndpoint();
    const svc = await startService({
      UPSTREAM_TOKEN: '',
      UPSTREAM_TOKEN_URL: endpoint.url,
      UPSTREAM_CLIENT_ID: 'svc',
      UPSTREAM_CLIENT_SECRET: 'client-SECRET-value',
    });
    const cookie = await svc.signIn();
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1' }), { cookie }), 200, '{"ok":true}');
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '2' }), { cookie }), 200, '{"ok":true}');
    expect(svc.stub.received.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-1']);
    expect(endpoint.requests).toHaveLength(1);

    // The upstream stops accepting token-1: one refresh, one resend.
    svc.stub.answer((request) =>
      request.headers.authorization === 'Bearer token-2' ? { json: { ok: true } } : { status: 401, json: { ok: false } },
    );
    svc.stub.received.length = 0;
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '3' }), { cookie }), 200, '{"ok":true}');
    expect(svc.stub.received.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(endpoint.requests).toHaveLength(2);

    // Every token rejected: still only one resend.
    svc.stub.answer({ status: 401, json: { ok: false } });
    svc.stub.received.length = 0;
    await expectAnswer(
      await svc.post(FIELD_PATH, form({ id: '4' }), { cookie }),
      200,
      '{"ok":false,"msg":"No se pudo actualizar la cotización."}',
    );
    expect(svc.stub.received).toHaveLength(2);
    expect(svc.logs.text()).not.toContain('client-SECRET-value');
    await svc.close();
    await endpoint.close();
  });

  it('answers the default message with no upstream call while the token endpoint is down', async () => {
    const endpoint = await startStubTokenEndpoint();
    endpoint.configure({ fail: true });
    const svc = await startService({
      UPSTREAM_TOKEN: '',
      UPSTREAM_TOKEN_URL: endpoint.url,
      UPSTREAM_CLIENT_ID: 'c',
      UPSTREAM_CLIENT_SECRET: 's',
    });
    const cookie = await svc.signIn();
    await expectAnswer(
      await svc.post(ITEM_PATH, form({ id: '2', delete: '' }), { cookie }),
      200,
      '{"ok":false,"msg":"No se pudo actualizar el ítem."}',
    );
    expect(svc.stub.received).toHaveLength(0);
    expect(await svc.rows()).toHaveLength(0);
    expect(svc.logs.lines.some((line) => line.outcome === 'token-unavailable')).toBe(true);
    await svc.close();
    await endpoint.close();
  });
});
