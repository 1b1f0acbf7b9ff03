import { describe, expect, it, onTestFinished } from 'vitest';
import { missing } from '@cotizaciones/adapters/testing';
import { nginxAvailable, startNginxWithProxyConf } from './support/nginx-chain.js';
import { FIELD_PATH, form, startService } from './support/service.js';

// The Idempotency-Key behind real nginx (idempotency-key.http.test.ts has the direct callers).
describe('Idempotency-Key on the upstream call behind nginx', () => {
  it.skipIf(missing('nginx', nginxAvailable))(
    "behind nginx with deploy/cotizaciones-proxy.conf, is nginx's $request_id, whatever the client sent",
    async () => {
      const svc = await startService({ TRUST_PROXY: '127.0.0.1' });
      onTestFinished(() => svc.close());
      const nginx = await startNginxWithProxyConf(Number(new URL(svc.url).port));
      onTestFinished(() => nginx.stop());
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
      const keys = svc.stub.received.map((request) => request.headers['idempotency-key']);
      expect(keys).toEqual(answers);
      expect(keys.every((key) => /^[0-9a-f]{32}$/.test(key as string))).toBe(true);
      expect(keys[0]).not.toBe(keys[1]);
    },
  );
});
