import { afterEach, describe, expect, it } from 'vitest';
import { missing } from '@cotizaciones/adapters/testing';
import { nginxAvailable, startNginxWithProxyConf } from './support/nginx-chain.js';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

// The Idempotency-Key behind real nginx (idempotency-key.http.test.ts has the direct callers).
describe('Idempotency-Key on the upstream call behind nginx', () => {
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

  it.skipIf(missing('nginx', nginxAvailable))(
    "behind nginx with deploy/cotizaciones-proxy.conf, is nginx's $request_id, whatever the client sent",
    async () => {
      const svc = await service({ TRUST_PROXY: '127.0.0.1' });
      const nginx = await startNginxWithProxyConf(Number(new URL(svc.url).port));
      cleanup.push(() => nginx.stop());
      const cookie = await svc.signIn();
      const answers = [];
      for (let i = 0; i < 2; i += 1) {
        const answer = await fetch(`${nginx.url}${FIELD_PATH}`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'chosen-by-client' },
          body: form({ id: '12', field: 'estado', value: 'x' }),
        });
        expect(await answer.text()).toBe('{"ok":true}');
        answers.push(answer.headers.get('x-request-id'));
      }
      expect(keys(svc)).toEqual(answers);
      expect(keys(svc).every((key) => /^[0-9a-f]{32}$/.test(key as string))).toBe(true);
      expect(keys(svc)[0]).not.toBe(keys(svc)[1]);
    },
  );
});
