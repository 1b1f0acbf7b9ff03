import { describe, expect, it } from 'vitest';
import { pace } from '../src/pace.js';
import { progress, type Counts } from '../src/progress.js';

const counts = (ok: number, failed = 0): Counts => ({ ok, rejected: 0, failed, invalid: 0, malformed: 0, skipped: 0, 'dry-run': 0 });

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { out: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream, written };
}

describe('pace (--rate)', () => {
  it('spaces starts 1/rate apart: at 50 a second, the 11 starts at 0, 20, … 200 ms on its clock', async () => {
    let t = 0;
    const next = pace(
      50,
      () => t,
      (ms) => ((t += ms), Promise.resolve()),
    );
    const starts: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      await next();
      starts.push(t);
    }
    expect(starts).toEqual(Array.from({ length: 11 }, (_, i) => i * 20));
  });

  it.each([100, 300, 1000])(
    'holds --rate %i within 5 %% when every timer fires 4 ms late: each start is scheduled from the ideal time',
    async (rate) => {
      let t = 0;
      const next = pace(
        rate,
        () => t,
        (ms) => ((t += ms + 4), Promise.resolve()),
      );
      let starts = 0;
      while (t < 10_000) {
        await next();
        starts += 1;
      }
      expect(Math.abs(starts / 10 - rate) / rate).toBeLessThan(0.05);
    },
  );

  it('without a rate, never waits', async () => {
    const next = pace(undefined);
    let resolved = false;
    void next().then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(true);
  });
});

describe('progress', () => {
  it('on a terminal, redraws one bar in place and ends it with a newline', () => {
    let now = 0;
    const { out, written } = stream(true);
    const bar = progress(out, 10, () => now);
    bar.update(5, counts(4, 1));
    now += 200;
    bar.update(10, counts(9, 1));
    bar.finish();
    expect(written[0]).toBe(`\r[${'#'.repeat(15)}${' '.repeat(15)}] 5/10 lines (ok 4, failed 1), 0.0/s, 0:00 elapsed\x1b[K`);
    expect(written[1]).toContain(`[${'#'.repeat(30)}] 10/10 lines (ok 9, failed 1)`);
    expect(written.at(-1)).toBe('\n');
  });

  it('elsewhere, one plain line every two seconds at most, with the rate, the time elapsed and an estimate of what is left', () => {
    let now = 10_000;
    const { out, written } = stream(false);
    const plain = progress(out, 100, () => now);
    for (let done = 1; done <= 100; done += 1) {
      plain.update(done, counts(done));
      now += 100; // 100 lines over 10 s
    }
    plain.finish();
    expect(written).toHaveLength(5);
    expect(written[0]).toBe('progress: 1/100 lines (ok 1), 0.0/s, 0:00 elapsed\n');
    // The rate so far, the time elapsed and what is left at that rate.
    expect(written[1]).toBe('progress: 21/100 lines (ok 21), 11/s, 0:02 elapsed, about 0:08 left\n');
    expect(written.every((line) => line.startsWith('progress: ') && !line.includes('\r'))).toBe(true);
  });
});
