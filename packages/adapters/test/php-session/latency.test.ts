import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phpSessions, type PhpSessionsOptions } from '../../src/php-session.js';
import { freePort, phpAvailable, phpServer, type PhpServer } from '../../src/testing/php-server.js';
import { redisProcess, redisServerAvailable } from '../../src/testing/redis-process.js';

const READS = 5_000;

/** Median and 99th percentile of what one request's `currentUser()` costs, measured over READS reads of a PHP-written session. */
async function measure(options: PhpSessionsOptions, cookie: string | undefined): Promise<{ median: number; p99: number }> {
  const sessions = phpSessions(options);
  await sessions.ready(2_000);
  const times: number[] = [];
  for (let i = 0; i < READS; i += 1) {
    const started = performance.now();
    const user = await sessions.sessionFor(cookie).currentUser();
    times.push(performance.now() - started);
    expect(user?.id).toBe('61');
  }
  await sessions.close();
  times.sort((a, b) => a - b);
  return { median: times[READS >> 1]!, p99: times[Math.floor(READS * 0.99)]! };
}

describe.skipIf(!phpAvailable())('read latency a request pays for a PHP session', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const report = (label: string, { median, p99 }: { median: number; p99: number }) =>
    console.log(`[php session latency] ${label}: median ${(median * 1000).toFixed(0)} µs, p99 ${(p99 * 1000).toFixed(0)} µs over ${READS} reads`);

  it(`files: ${READS} reads of a session PHP wrote`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'php-sess-latency-'));
    const php: PhpServer = await phpServer({ 'session.save_handler': 'files', 'session.save_path': dir });
    cleanups.push(() => php.stop(), () => rm(dir, { recursive: true, force: true }));
    const { cookie } = await php.get('session.php?action=signin&id=61');
    for (const touch of ['none', 'expiry'] as const) {
      report(`files, touch ${touch}`, await measure({ saveHandler: 'files', savePath: dir, touch, activityKey: 'LAST_ACTIVITY', idleSeconds: 1800 }, cookie));
    }
  }, 120_000);

  it.skipIf(!redisServerAvailable())(`redis: ${READS} reads of a session PHP wrote`, async () => {
    const server = redisProcess(await freePort());
    await server.start();
    cleanups.push(() => server.stop());
    const savePath = `tcp://127.0.0.1:${new URL(server.url).port}`;
    const php: PhpServer = await phpServer({ 'session.save_handler': 'redis', 'session.save_path': savePath });
    cleanups.push(() => php.stop());
    const { cookie } = await php.get('session.php?action=signin&id=61');
    for (const touch of ['none', 'expiry', 'activity'] as const) {
      report(`redis, touch ${touch}`, await measure({ saveHandler: 'redis', savePath, touch, activityKey: 'LAST_ACTIVITY', idleSeconds: 1800 }, cookie));
    }
  }, 120_000);
});
