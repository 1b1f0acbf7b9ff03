import { describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { missing, redisCommandsDuring, redisProcess, redisServerAvailable } from '@cotizaciones/adapters/testing';
import { startService } from './support/service.js';
import { until } from './support/until.js';

// /readyz beside a private redis-server the test stops and starts (operations.http.test.ts has the in-process cases).
describe('GET /readyz with Redis sessions', () => {
  const readyz = async (url: string) => {
    const response = await fetch(`${url}/readyz`);
    return { status: response.status, body: (await response.json()) as { ok: boolean; reasons?: string[]; degraded?: string[] } };
  };

  it.skipIf(missing('redis-server', redisServerAvailable()))(
    'answers from its background check, never asking a store itself: 503 naming the session store once a check finds it down, 200 once one finds it back; 503 at once when draining',
    async () => {
      const redis = redisProcess(6392);
      await redis.start();
      const svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: redis.url });
      expect(await readyz(svc.url)).toEqual({ status: 200, body: { ok: true } });
      // A probe asks no store: the stores see the background checks' PINGs only, not one per probe.
      const commands = await redisCommandsDuring(redis.url, async () => {
        for (let i = 0; i < 100; i += 1) expect((await readyz(svc.url)).status).toBe(200);
      });
      expect(commands.filter(([name]) => name?.toLowerCase() === 'ping').length).toBeLessThan(10);

      await redis.stop();
      expect(await until(async () => (await readyz(svc.url)).status === 503, 10_000)).toBe(true);
      expect((await readyz(svc.url)).body).toEqual({ ok: false, reasons: [expect.stringMatching(/^session store: /)] });
      await expectAnswer(await fetch(`${svc.url}/healthz`), 200, '{"ok":true}');

      await redis.start();
      expect(await until(async () => (await readyz(svc.url)).status === 200, 10_000)).toBe(true);

      svc.service.drain();
      expect(await readyz(svc.url)).toEqual({ status: 503, body: { ok: false, reasons: ['shutting down'] } });
      await expectAnswer(await fetch(`${svc.url}/healthz`), 200, '{"ok":true}');
      await svc.close();
      await redis.stop();
    },
  );
});
