import { describe, expect, it } from 'vitest';
import { rateLimitedReport } from '../../src/php-session/rate-limited-report.js';

describe('rateLimitedReport', () => {
  it('says each kind once per period with how many were not said; another kind is never hidden by it', () => {
    let now = 0;
    const said: { kind: string; unreported?: number }[] = [];
    const report = rateLimitedReport<{ kind: string; unreported?: number }>(
      (problem) => said.push(problem),
      60_000,
      () => now,
    );
    for (let i = 0; i < 5; i += 1) report('touch-failed EROFS', () => ({ kind: 'EROFS' }));
    report('touch-failed EIO', () => ({ kind: 'EIO' }));
    now += 60_000;
    report('touch-failed EROFS', () => ({ kind: 'EROFS' }));
    expect(said).toEqual([{ kind: 'EROFS' }, { kind: 'EIO' }, { kind: 'EROFS', unreported: 4 }]);
  });

  it('past 64 kinds, a new kind is said every time rather than remembered', () => {
    const said: string[] = [];
    const report = rateLimitedReport<{ kind: string; unreported?: number }>(
      (problem) => said.push(problem.kind),
      60_000,
      () => 0,
    );
    for (let i = 0; i < 64; i += 1) report(`kind ${i}`, () => ({ kind: `kind ${i}` }));
    report('one more', () => ({ kind: 'one more' }));
    report('one more', () => ({ kind: 'one more' }));
    report('kind 0', () => ({ kind: 'kind 0' }));
    expect(said.slice(64)).toEqual(['one more', 'one more']);
  });
});
