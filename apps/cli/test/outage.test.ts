import { describe, expect, it } from 'vitest';
import { changeLine } from '../src/change-line.js';
import type { LineResult } from '../src/line-result.js';
import { outageGuard, type OutageOptions } from '../src/outage.js';

const line = changeLine(2, 'quotation', new Map([['id', '1']]), () => 1);
const refused: LineResult = { line: 2, outcome: 'failed', message: 'ECONNREFUSED', code: 'UPSTREAM_UNREACHABLE' };
const ok: LineResult = { line: 2, outcome: 'ok', message: '' };

/** An outage guard on an injected clock: each wait advances it and is recorded. */
function guarded(answers: LineResult[], maxWaitMs: number) {
  let now = 0;
  const waits: number[] = [];
  const told: Parameters<OutageOptions['onOutage']>[0][] = [];
  let gaveUp = 0;
  const guard = outageGuard(() => Promise.resolve(answers.shift() ?? ok), {
    maxWaitMs,
    signal: new AbortController().signal,
    onOutage: (state) => told.push(state),
    onGiveUp: () => (gaveUp += 1),
    now: () => now,
    sleep: (ms) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  });
  return { guard, waits, told, gaveUp: () => gaveUp };
}

describe('the outage guard', () => {
  it('runs a line that reached nobody again after waits that double up to 2 s, then goes on, told once at each end', async () => {
    const { guard, waits, told } = guarded(
      Array.from({ length: 7 }, () => refused),
      60_000,
    );
    expect(await guard.run(line)).toEqual(ok);
    expect(waits).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000]);
    expect(told).toEqual([
      { down: true, message: 'ECONNREFUSED' },
      { down: false, waitedMs: 7_100 },
    ]);
  });

  it('holds new lines while the upstream is unreachable, and lets them start once it answers', async () => {
    let wake: () => void = () => undefined;
    const answers = [refused];
    const guard = outageGuard(() => Promise.resolve(answers.shift() ?? ok), {
      maxWaitMs: 60_000,
      signal: new AbortController().signal,
      onOutage: () => undefined,
      onGiveUp: () => undefined,
      sleep: () => new Promise<void>((resolve) => (wake = resolve)),
    });
    let cleared = false;
    await guard.clear();
    const running = guard.run(line);
    await new Promise((resolve) => setImmediate(resolve));
    const clear = guard.clear().then(() => (cleared = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(cleared).toBe(false);
    wake();
    expect(await running).toEqual(ok);
    await clear;
    expect(cleared).toBe(true);
  });

  it('past maxWaitMs, gives the line up as not sent, and says so once', async () => {
    const { guard, waits, gaveUp } = guarded(
      Array.from({ length: 20 }, () => refused),
      1_000,
    );
    const result = await guard.run(line);
    expect(waits).toEqual([100, 200, 400, 300]);
    expect(result).toMatchObject({
      outcome: 'failed',
      code: 'UPSTREAM_UNREACHABLE',
      message: 'not sent: the upstream could not be reached for 1 s (ECONNREFUSED)',
    });
    expect(gaveUp()).toBe(1);
    expect((await guard.run(line)).message).toMatch(/^not sent/);
    expect(gaveUp()).toBe(1);
  });
});
