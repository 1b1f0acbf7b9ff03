import { describe, expect, it } from 'vitest';
import { bearerMatcher } from '../src/http/bearer-guard.js';

describe('bearerMatcher', () => {
  const matches = bearerMatcher('metrics-token-0123456789');

  it('accepts exactly "Bearer <token>"', () => {
    expect(matches('Bearer metrics-token-0123456789')).toBe(true);
  });

  it.each([
    '',
    'Bearer ',
    'Bearer metrics-token-012345678',
    'Bearer metrics-token-0123456789 ',
    'Bearer metrics-token-0123456780',
    'x'.repeat(10_000),
  ])('refuses %j without throwing, whatever its length (timingSafeEqual needs equal lengths: digests are compared)', (header) => {
    expect(matches(header)).toBe(false);
  });
});
