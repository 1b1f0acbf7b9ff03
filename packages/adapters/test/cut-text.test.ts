import { describe, expect, it } from 'vitest';
import { cutText } from '../src/activity-log/cut-text.js';

describe('cutText', () => {
  it('leaves a value that fits as it is', () => {
    expect(cutText('abc', { maxCharacters: 3 })).toBe('abc');
  });

  it('cuts to the bound, marker included, saying how many UTF-8 bytes the value had', () => {
    const cut = cutText('x'.repeat(300), { maxCharacters: 255 });
    expect([...cut]).toHaveLength(255);
    expect(cut).toMatch(/^x+…\[cut: 300 bytes\]$/);
  });

  it('never splits a character, counting bytes in the column’s encoding', () => {
    const cut = cutText('😀'.repeat(40), { maxBytes: 64 });
    expect(cut).toBe(`${'😀'.repeat(11)}…[cut: 160 bytes]`);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(64);
  });

  it('a value cut before keeps the length it had first', () => {
    const once = cutText('y'.repeat(1000), { maxCharacters: 512 });
    expect(cutText(once, { maxCharacters: 100 })).toMatch(/^y+…\[cut: 1000 bytes\]$/);
  });

  it('a bound too small for the marker gets the bare prefix', () => {
    expect(cutText('abcdefghijklmnopqrstuvwxyz', { maxCharacters: 5 })).toBe('abcde');
  });
});
