import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, phpAvailable, phpServer, redisProcess, redisServerAvailable, type PhpServer, type RedisProcess } from '@cotizaciones/adapters/testing';
import { FIELD_PATH, form, startService, type TestService } from './support/service.js';

const ROUNDS = 400;

/**
 * What reading the PHP app's session adds to a whole request through the service: the same request,
 * interleaved round by round, with the service's own cookie session and with a PHP session (files,
 * Redis) that a real PHP signed in. Printed for BENCHMARKS.md; asserted only to be answered.
 */
describe.skipIf(!phpAvailable() || !redisServerAvailable())('request latency with SESSION_STORE=php vs the service\'s own sessions', () => {
  let scratch: string;
  let redis: RedisProcess;
  const phps: PhpServer[] = [];
  const services: TestService[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'phpwire-latency-'));
    redis = redisProcess(await freePort());
    await redis.start();
  });
  afterAll(async () => {
    await Promise.all(services.map((svc) => svc.close()));
    await Promise.all(phps.map((php) => php.stop()));
    await redis.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it(`${ROUNDS} rounds: cookie, redis (koa-session), php files, php redis`, async () => {
    const dir = join(scratch, 'sessions');
    await mkdir(dir);
    const redisSavePath = `tcp://127.0.0.1:${new URL(redis.url).port}?prefix=lat_`;
    const phpFiles = await phpServer({ 'session.save_handler': 'files', 'session.save_path': dir });
    const phpRedis = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': redisSavePath });
    phps.push(phpFiles, phpRedis);

    const quiet = { LOG_LEVEL: 'silent', ACTIVITY_LOG_URL: 'memory:' };
    const modes: Array<{ name: string; svc: TestService; cookie: string }> = [];
    const add = async (name: string, env: Record<string, string>, cookie: (svc: TestService) => Promise<string>) => {
      const svc = await startService({ ...quiet, ...env });
      services.push(svc);
      modes.push({ name, svc, cookie: await cookie(svc) });
    };
    await add('cookie', {}, (svc) => svc.signIn('5'));
    await add('redis (koa-session)', { SESSION_STORE: 'redis', REDIS_URL: redis.url }, (svc) => svc.signIn('5'));
    const phpCookie = async (php: PhpServer) => (await php.get('session.php?action=signin&id=5')).cookie!;
    await add('php files', { DEV_LOGIN: '', SESSION_STORE: 'php', PHP_SESSION_SAVE_PATH: dir }, () => phpCookie(phpFiles));
    await add('php redis', { DEV_LOGIN: '', SESSION_STORE: 'php', PHP_SESSION_SAVE_HANDLER: 'redis', PHP_SESSION_SAVE_PATH: redisSavePath }, () => phpCookie(phpRedis));

    const times = new Map(modes.map((mode) => [mode.name, [] as number[]]));
    const body = form({ id: '12', field: 'estado', value: 'x' }).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    for (let round = -20; round < ROUNDS; round += 1) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        const started = performance.now();
        const answer = await mode.svc.post(FIELD_PATH, body, { cookie: mode.cookie, headers });
        const text = await answer.text();
        const elapsed = performance.now() - started;
        expect(text).toBe('{"ok":true}');
        if (round >= 0) times.get(mode.name)!.push(elapsed);
      }
    }
    const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    const base = at([...times.get('cookie')!].sort((a, b) => a - b), 0.5);
    const lines = [...times].map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      const median = at(sorted, 0.5);
      return `${name.padEnd(20)} median ${median.toFixed(3)} ms  p90 ${at(sorted, 0.9).toFixed(3)} ms  (+${(median - base).toFixed(3)} ms vs cookie)`;
    });
    console.log(`\nwhole request through the service, ${ROUNDS} rounds interleaved:\n${lines.join('\n')}\n`);
  }, 120_000);
});
