import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLog, loadRuntimeConfig, openAdapters } from '../src/index.js';

describe('openAdapters', () => {
  it('opens what the configuration names and says so, without a secret', async () => {
    const lines: string[] = [];
    const stream = new PassThrough().on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const adapters = await openAdapters(loadRuntimeConfig({ ACTIVITY_LOG_URL: 'memory:' }), createLog('info', stream));
    try {
      expect(adapters.description).toEqual({ upstream: 'demo (built in)', activityLog: 'memory', upstreamToken: 'static', sessions: 'cookie' });
      expect(lines.join('')).toContain('using the built-in demo upstream');
      await expect(adapters.readiness()).resolves.toEqual([]);
      const reply = await adapters.deps.upstream.post({ path: '/x', payload: { id: '1' }, token: 'demo-token' });
      expect(reply.body).toEqual({ ok: true });
    } finally {
      await adapters.close(1_000);
    }
  });

  it('names a store that cannot be reached in its readiness', async () => {
    const adapters = await openAdapters(loadRuntimeConfig({ ACTIVITY_LOG_URL: 'postgres://nobody@127.0.0.1:1/none' }), createLog('silent'));
    try {
      expect(await adapters.readiness()).toEqual([expect.stringMatching(/^activity log: /)]);
    } finally {
      await adapters.close(100);
    }
  });
});
