import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLog, loadRuntimeConfig, openAdapters, openSessionStore, readSessionConfig, type ConfigProblems } from '../src/index.js';

describe('openAdapters', () => {
  it('opens what the configuration names and says so, without a secret', async () => {
    const lines: string[] = [];
    const stream = new PassThrough().on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const adapters = await openAdapters(loadRuntimeConfig({ ACTIVITY_LOG_URL: 'memory:' }), createLog('info', stream));
    try {
      expect(adapters.description).toEqual({ upstream: 'demo (built in)', activityLog: 'memory', upstreamToken: 'static' });
      expect(lines.join('')).toContain('using the built-in demo upstream');
      await expect(adapters.degraded()).resolves.toEqual([]);
      const reply = await adapters.deps.upstream.post({ path: '/x', payload: { id: '1' }, token: 'demo-token', idempotencyKey: 'k' });
      expect(reply.body).toEqual({ ok: true });
    } finally {
      await adapters.close(1_000);
    }
  });

  it('names an activity-log store that cannot be reached as what the service does without', async () => {
    const adapters = await openAdapters(loadRuntimeConfig({ ACTIVITY_LOG_URL: 'postgres://nobody@127.0.0.1:1/none' }), createLog('silent'));
    try {
      // The first check may outlast its 1 s bound while the driver loads on a busy machine ("no
      // answer within"): asked again until the refusal itself is the finding.
      let findings = await adapters.degraded();
      for (let tries = 1; tries < 30 && findings[0]?.summary !== 'activity log: unavailable'; tries += 1)
        findings = await adapters.degraded();
      expect(findings).toEqual([
        { summary: 'activity log: unavailable', detail: expect.stringMatching(/^activity log: .*127\.0\.0\.1:1/) as string },
      ]);
    } finally {
      await adapters.close(100);
    }
  });
});

describe('openSessionStore: for a channel with sessions', () => {
  it('opens the store SESSION_STORE names, one lifecycle for every mode', async () => {
    const cookie = await openSessionStore(sessionConfig({}), createLog('silent'));
    expect([cookie.kind, cookie.describe()]).toEqual(['cookie', 'signed cookies']);
    await cookie.ping();
    await cookie.close();
  });

  it('opens a Redis that is down anyway, says so once, and fails its ping until it answers', async () => {
    const lines: string[] = [];
    const stream = new PassThrough().on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const store = await openSessionStore(
      sessionConfig({ SESSION_STORE: 'redis', REDIS_URL: 'redis://:SECRET@127.0.0.1:1' }),
      createLog('info', stream),
    );
    try {
      expect([store.kind, store.describe()]).toEqual(['records', 'Redis at 127.0.0.1:1, keys "cotizaciones:sess:<id>"']);
      await expect(store.ping()).rejects.toMatchObject({ code: 'SESSION_UNAVAILABLE' });
      expect(lines.join('')).toContain('the session store is not reachable yet');
      expect(lines.join('')).not.toContain('SECRET');
    } finally {
      await store.close();
    }
    // It waits 2 s for the store by design; the bound only stops a hang on a busy machine.
  }, 30_000);
});

function sessionConfig(env: Record<string, string>) {
  const problems: ConfigProblems = new Map();
  const config = readSessionConfig(env, problems);
  expect([...problems.values()]).toEqual([]);
  return config;
}
