import { describe, expect, it } from 'vitest';
import { isInt64 } from '../src/php-int.js';
import { isRequestId } from '../src/request-id.js';

describe('the value rules a replayed entry is checked against', () => {
  it.each<[string, boolean]>([
    ['req-1', true],
    ['0b6f1c2e-9d1a-4a8e-b5b8-2f3c4d5e6f70', true],
    ['run.7:line_12', true],
    ['r'.repeat(128), true],
    ['r'.repeat(129), false],
    ['', false],
    ['has space', false],
    ['new\nline', false],
    ['ünïcode', false],
  ])('request id %j: %s', (value, expected) => {
    expect(isRequestId(value)).toBe(expected);
  });

  it.each<[bigint, boolean]>([
    [9223372036854775807n, true],
    [-9223372036854775808n, true],
    [9223372036854775808n, false],
    [-9223372036854775809n, false],
    [99999999999999999999n, false],
  ])('entity id %s fits 64 bits: %s', (value, expected) => {
    expect(isInt64(value)).toBe(expected);
  });
});
