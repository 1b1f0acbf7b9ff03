import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { missing, serviceUrls } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { cookieHeader, FIELD_PATH, form, startService } from './support/service.js';

describe('upstream token from the session user', () => {
  // Server-side sessions only: a cookie session would carry the token to the browser.
  const redisUrl = serviceUrls().redis;
  it.skipIf(missing('Redis (TEST_REDIS_URL)', redisUrl))(
    "sends the signed-in user's own token, and fails without calling the upstream when the user has none",
    async () => {
      const svc = await startService({
        UPSTREAM_TOKEN: '',
        UPSTREAM_TOKEN_SESSION_KEY: 'token',
        SESSION_STORE: 'redis',
        REDIS_URL: redisUrl ?? '',
        REDIS_KEY_PREFIX: `test:token-source:${randomUUID()}:`,
      });
      const login = await fetch(`${svc.url}/dev/login`, { method: 'POST', body: form({ id: '5', token: 'ana-own-token' }) });
      const withToken = cookieHeader(login);
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1' }), { cookie: withToken }), 200, '{"ok":true}');
      expect(svc.stub.received[0]?.headers.authorization).toBe('Bearer ana-own-token');

      const withoutToken = await svc.signIn('6');
      await expectAnswer(
        await svc.post(FIELD_PATH, form({ id: '1' }), { cookie: withoutToken }),
        200,
        '{"ok":false,"msg":"No se pudo actualizar la cotización."}',
      );
      expect(svc.stub.received).toHaveLength(1);
      for (const cookie of [withToken, withoutToken]) await fetch(`${svc.url}/dev/logout`, { method: 'POST', headers: { cookie } });
      await svc.close();
    },
  );
});
