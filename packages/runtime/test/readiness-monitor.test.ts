import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failedChecks, NOT_CHECKED, plainFinding, readinessCheck, readinessMonitor, type Readiness } from '../src/index.js';

type Finding = Omit<Readiness, 'checked'>;

const down = (part: string) => ({ summary: `${part}: unavailable`, detail: `${part}: connect ECONNREFUSED 10.0.0.7:5432` });

/** A check whose every run the test settles by hand. */
function controlledCheck() {
  const runs: Array<{ resolve: (finding: Finding) => void; reject: (error: Error) => void }> = [];
  const check = () => new Promise<Finding>((resolve, reject) => runs.push({ resolve, reject }));
  return { check, runs };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('readinessMonitor', () => {
  it('is not ready before its first check has finished, then answers what that check found', async () => {
    const { check, runs } = controlledCheck();
    const monitor = readinessMonitor(check, 1_000);
    expect(runs).toHaveLength(1);
    expect(monitor.current()).toBe(NOT_CHECKED);
    expect(NOT_CHECKED).toEqual({ checked: false, reasons: [plainFinding('not checked yet')], degraded: [] });

    runs[0]!.resolve({ reasons: [], degraded: [down('activity log')] });
    await monitor.firstCheck;
    expect(monitor.current()).toEqual({ checked: true, reasons: [], degraded: [down('activity log')] });
    monitor.stop();
  });

  it('checks one at a time, again after each one ends, and keeps the last finding meanwhile', async () => {
    const { check, runs } = controlledCheck();
    const monitor = readinessMonitor(check, 1_000);
    runs[0]!.resolve({ reasons: [down('session store')], degraded: [] });
    await monitor.firstCheck;

    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toHaveLength(2);
    // The second check hangs: no other starts beside it, and the last finding stands.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toHaveLength(2);
    expect(monitor.current().reasons).toEqual([down('session store')]);

    runs[1]!.resolve({ reasons: [], degraded: [] });
    await vi.advanceTimersByTimeAsync(0);
    expect(monitor.current()).toEqual({ checked: true, reasons: [], degraded: [] });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toHaveLength(3);

    // A check that throws is a reason not to be ready: its message only in the detail.
    runs[2]!.reject(new Error('session store: no answer from 10.0.0.7:6379'));
    await vi.advanceTimersByTimeAsync(0);
    expect(monitor.current()).toEqual({
      checked: true,
      reasons: [{ summary: 'a readiness check failed', detail: 'session store: no answer from 10.0.0.7:6379' }],
      degraded: [],
    });
    monitor.stop();
  });

  it('starts no check once stopped, and its timer does not keep the process alive', async () => {
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const { check, runs } = controlledCheck();
    const monitor = readinessMonitor(check, 1_000);
    runs[0]!.resolve({ reasons: [], degraded: [] });
    await monitor.firstCheck;
    expect(vi.getTimerCount()).toBe(1);
    expect((timeouts.mock.results[0]!.value as NodeJS.Timeout).hasRef()).toBe(false);
    monitor.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toHaveLength(1);
  });
});

describe('readinessCheck', () => {
  it("names the part for anyone, and keeps the driver's message (hosts, ports) for the detail", async () => {
    const refused = Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432'));
    expect(
      await failedChecks([readinessCheck(refused, 1_000, 'activity log'), readinessCheck(Promise.resolve(), 1_000, 'session store')]),
    ).toEqual([{ summary: 'activity log: unavailable', detail: 'activity log: connect ECONNREFUSED 10.0.0.7:5432' }]);
  });

  it('says a check that takes too long had no answer in time, which names no host', async () => {
    const found = failedChecks([readinessCheck(new Promise(() => undefined), 1_000, 'session store')]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await found).toEqual([plainFinding('session store: no answer within 1000 ms')]);
  });
});
