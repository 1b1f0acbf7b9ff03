import { afterEach, describe, expect, it } from 'vitest';
import { onStopSignals, SAME_SIGNAL_MS } from '../src/stop-signals.js';

describe('onStopSignals', () => {
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  afterEach(() => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.off(signal, listener);
    }
  });

  it('takes a signal within a second of the first as the same one, and a later one as "again"', () => {
    let now = 1_000;
    const calls: string[] = [];
    onStopSignals(
      (signal) => calls.push(`first ${signal}`),
      (signal) => calls.push(`again ${signal}`),
      () => now,
    );
    process.emit('SIGINT', 'SIGINT');
    now += 5;
    process.emit('SIGINT', 'SIGINT'); // npm passing the same Ctrl-C on
    now += SAME_SIGNAL_MS - 10;
    process.emit('SIGTERM', 'SIGTERM');
    expect(calls).toEqual(['first SIGINT']);
    now += 5;
    process.emit('SIGINT', 'SIGINT');
    expect(calls).toEqual(['first SIGINT', 'again SIGINT']);
  });
});
