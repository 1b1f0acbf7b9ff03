import { describe, expect, it } from 'vitest';
import { phpIntCast } from '../src/php-int.js';

describe("phpIntCast: PHP's (int) of a string", () => {
  it.each<[string, bigint]>([
    ['12', 12n],
    ['12abc', 12n],
    [' 15', 15n],
    ['\t\n\r\v\f15', 15n],
    ['12 ', 12n],
    ['1e3', 1000n],
    ['1E3', 1000n],
    ['1e-3', 0n],
    ['2.5e1', 25n],
    ['12.9', 12n],
    ['12.', 12n],
    ['-12.9', -12n],
    ['-5', -5n],
    ['+5', 5n],
    ['-0', 0n],
    ['0x1A', 0n],
    ['.5', 0n],
    ['.', 0n],
    ['-', 0n],
    ['1e', 1n],
    ['1_000', 1n],
    ['abc', 0n],
    ['', 0n],
    ['\u00a015', 0n],
    ['007', 7n],
    ['9223372036854775807', 9223372036854775807n],
    ['9999999999999999999', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['-99999999999999999999', -9223372036854775808n],
    ['1e30', 9223372036854775807n],
    ['-1e30', -9223372036854775808n],
    ['1e999', 0n],
  ])('(int)%j is %s', (text, expected) => {
    expect(phpIntCast(text)).toBe(expected);
  });
});

describe('phpIntCast on long digit strings', () => {
  it.each<[string, bigint]>([
    ['00000000000000000000000000012', 12n],
    ['-0000000000000000000000000000009223372036854775808', -9223372036854775808n],
    ['9223372036854775808', 9223372036854775807n],
    ['-9223372036854775809', -9223372036854775808n],
    ['+0', 0n],
    ['-00', 0n],
    ['1234567890123456789', 1234567890123456789n],
    ['12345678901234567890', 9223372036854775807n],
    ['-12345678901234567890abc', -9223372036854775808n],
    [`${'0'.repeat(1000)}7`, 7n],
  ])('(int)%j is %s', (text, expected) => {
    expect(phpIntCast(text)).toBe(expected);
  });

  it('saturates a 1 MiB digit string (signed either way) to the 64-bit bounds', () => {
    const digits = '9'.repeat(1024 * 1024);
    expect(phpIntCast(digits)).toBe(9223372036854775807n);
    expect(phpIntCast(` +${digits}x`)).toBe(9223372036854775807n);
    expect(phpIntCast(`-${digits}`)).toBe(-9223372036854775808n);
  });
});
