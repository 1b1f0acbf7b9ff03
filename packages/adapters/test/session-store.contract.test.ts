import { describe, expect, it } from 'vitest';
import { SessionUnavailableError } from '@cotizaciones/core';
import { inMemorySessionStore } from '../src/index.js';
import { redisSessionStore } from '../src/redis.js';
import { testSessionStore } from '../src/testing/index.js';

testSessionStore('in-memory', () => Promise.resolve({ store: inMemorySessionStore(), close: () => Promise.resolve() }), { ttl: true });

describe('Redis session store, unreachable', () => {
  it('fails at once with SessionUnavailableError instead of queueing', async () => {
    // A command queued until its time limit would take 10 s; refused at once, it takes milliseconds (5 s bounds a busy machine).
    const store = redisSessionStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 10_000 });
    const started = Date.now();
    await expect(store.get('k')).rejects.toBeInstanceOf(SessionUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await store.close();
  });
});
