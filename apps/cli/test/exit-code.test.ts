import { describe, expect, it } from 'vitest';
import { exitCode } from '../src/exit-code.js';

describe('exitCode', () => {
  it.each([
    [true, 0, 0],
    [true, 2, 3],
    [false, 0, 1],
    // Lines left to do outweigh entries set aside: a rerun has work, and the summary names both.
    [false, 2, 1],
  ] as const)('every line done: %s, audit entries not written: %i → %i', (allSucceeded, auditUnwritten, code) => {
    expect(exitCode({ allSucceeded, auditUnwritten })).toBe(code);
  });
});
