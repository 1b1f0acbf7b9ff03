import { describe, expect, it } from 'vitest';
import { missing, redisProcess, redisServerAvailable, serviceUrls } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, form, startService } from './support/service.js';
import { until } from './support/until.js';

const urls = serviceUrls();

// Sessions in a real Redis: a private redis-server stopped and started, the shared one between two instances
// (resilience.http.test.ts has Redis unreachable).
describe('sessions in Redis', () => {
  it.skipIf(missing('redis-server', redisServerAvailable()))(
    'recovers by itself when Redis comes back: 503 while it is down, normal after',
    async () => {
      const redis = redisProcess(6391);
      await redis.start();
      const svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: redis.url });
      let cookie = await svc.signIn();
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '5' }), { cookie }), 200, '{"ok":true}');
      await redis.stop();
      await expectAnswer(await svc.post(FIELD_PATH, form({ id: '5' }), { cookie }), 503, '{"ok":false,"msg":"Servicio no disponible."}');
      expect(svc.stub.received).toHaveLength(1);
      await redis.start();
      // This Redis keeps nothing on disk, so the old session is gone: sign in again, with no process restart.
      const signedInAgain = await until(async () => {
        cookie = await svc.signIn().catch(() => '');
        return cookie !== '' && (await (await svc.post(FIELD_PATH, form({ id: '5' }), { cookie })).text()) === '{"ok":true}';
      }, 10_000);
      expect(signedInAgain).toBe(true);
      await svc.close();
      await redis.stop();
    },
  );

  it.skipIf(missing('Redis (TEST_REDIS_URL)', urls.redis))(
    'shares sessions between two instances, and a sign-out ends them everywhere',
    async () => {
      const env = { SESSION_STORE: 'redis', REDIS_URL: urls.redis ?? '' };
      const one = await startService(env);
      const two = await startService(env);
      const cookie = await one.signIn('77');
      await expectAnswer(await two.post(FIELD_PATH, form({ id: '5', field: 'x' }), { cookie }), 200, '{"ok":true}');
      expect((await two.rows()).map((row) => row.user_id)).toEqual(['77']);
      await fetch(`${one.url}/dev/logout`, { method: 'POST', headers: { cookie } });
      // The same (still validly signed) cookie is refused: the session is gone from Redis.
      await expectAnswer(await two.post(FIELD_PATH, form({ id: '5' }), { cookie }), 200, '{"ok":false,"msg":"No autenticado"}');
      await one.close();
      await two.close();
    },
  );
});
