import { describe, expect, it } from 'vitest';
import { ActivityStoreError, bufferedActivityLog, type ActivityLogStore } from '@cotizaciones/adapters';
import { sampleEntry } from '@cotizaciones/adapters/testing';
import { memoryLimitBytes } from '../src/memory-limit.js';
import { createMetrics } from '../src/metrics.js';

const START = Date.parse('2026-03-04T05:00:00.000Z');

/** A store down while `down` is set. */
function switchableStore() {
  const state = { down: true };
  const store: ActivityLogStore = {
    write: () => (state.down ? Promise.reject(new ActivityStoreError('unavailable', 'ECONNREFUSED', 'store down')) : Promise.resolve()),
    ping: () => (state.down ? Promise.reject(new Error('store down')) : Promise.resolve()),
    close: () => Promise.resolve(),
  };
  return { store, state };
}

/** The gauge's one value, as a scrape computes it. */
async function gauge(metrics: ReturnType<typeof createMetrics>, name: string): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  return (await metric?.get())?.values[0]?.value;
}

describe('activity_log_oldest_pending_seconds', () => {
  it('ages with the log’s clock while an entry waits for a store that is down, and is 0 once it is written', async () => {
    const time = { now: START };
    const { store, state } = switchableStore();
    const log = bufferedActivityLog(store, {
      clock: { now: () => time.now, sleep: () => new Promise((resolve) => setImmediate(resolve)) },
      retryMinMs: 1,
      retryMaxMs: 1,
    });
    const metrics = createMetrics(log, () => false);
    expect(await gauge(metrics, 'activity_log_oldest_pending_seconds')).toBe(0);

    void log.record(sampleEntry({ createdAt: new Date(START) }));
    time.now = START + 90_000;
    expect(await gauge(metrics, 'activity_log_oldest_pending_seconds')).toBe(90);
    time.now = START + 150_500;
    expect(await gauge(metrics, 'activity_log_oldest_pending_seconds')).toBe(150.5);

    state.down = false;
    await log.flush();
    expect(await gauge(metrics, 'activity_log_oldest_pending_seconds')).toBe(0);
    await log.close(1_000);
  });
});

describe('process_memory_limit_bytes', () => {
  it('is the cgroup limit Node reads, and 0 for each way a Node version says there is none', () => {
    expect(memoryLimitBytes(() => 512 * 1024 * 1024)).toBe(512 * 1024 * 1024);
    expect(memoryLimitBytes(() => undefined)).toBe(0);
    expect(memoryLimitBytes(() => 0)).toBe(0);
    // cgroup v2's `max`, as Node 20 reads it: 2^64 - 1, which a double rounds to 2^64.
    expect(memoryLimitBytes(() => 2 ** 64)).toBe(0);
    expect(memoryLimitBytes(() => Number.NaN)).toBe(0);
  });
});

describe('activity_log_dead_letter_bytes', () => {
  it('keeps its last value when the file cannot be read, and the scrape still answers', async () => {
    const log = bufferedActivityLog(switchableStore().store);
    let stats = 0;
    const deadLetterBytes = () =>
      (stats += 1) === 1
        ? Promise.resolve(2_048)
        : Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
    const metrics = createMetrics({ stats: () => log.stats(), oldestPendingMs: () => 0, deadLetterBytes }, () => true);
    expect(await gauge(metrics, 'activity_log_dead_letter_bytes')).toBe(2_048);
    expect(await metrics.registry.metrics()).toContain('activity_log_dead_letter_bytes 2048');
    expect(stats).toBe(2);
    await log.close(1_000);
  });
});
