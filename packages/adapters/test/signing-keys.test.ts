import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingKeys } from '../src/session/signing-keys.js';

const keygrip = (key: string, data: string) => createHmac('sha1', key).update(data).digest('base64url');

describe('signing keys (the cookies library’s keygrip)', () => {
  it('signs as keygrip does, with the first key', () => {
    const signer = signingKeys(['new', 'old']);
    expect(signer.sign('cotizaciones.sid=abc')).toBe(keygrip('new', 'cotizaciones.sid=abc'));
  });

  it('tells which key signed, however often it is asked (a verified pair is remembered)', () => {
    const signer = signingKeys(['new', 'old']);
    const data = 'cotizaciones.sid=abc';
    for (let i = 0; i < 3; i += 1) {
      expect(signer.index(data, keygrip('new', data))).toBe(0);
      expect(signer.index(data, keygrip('old', data))).toBe(1);
      expect(signer.verify(data, keygrip('old', data))).toBe(true);
    }
  });

  it('refuses a signature that is not the data’s, before and after the genuine one verified', () => {
    const signer = signingKeys(['key']);
    const data = 'cotizaciones.sid=abc';
    const genuine = keygrip('key', data);
    const tampered = `${genuine.slice(0, -1)}${genuine.endsWith('A') ? 'B' : 'A'}`;
    expect(signer.index(data, tampered)).toBe(-1);
    expect(signer.verify(data, genuine)).toBe(true);
    expect(signer.index(data, tampered)).toBe(-1);
    // The genuine signature of other data, or of these data under another key.
    expect(signer.verify('cotizaciones.sid=abd', genuine)).toBe(false);
    expect(signer.verify(data, keygrip('other', data))).toBe(false);
    expect(signer.verify(data, '')).toBe(false);
  });

  it('verifies a long pair (one it does not remember) every time, and refuses it tampered', () => {
    const signer = signingKeys(['key']);
    const data = `cotizaciones.sid=${'A'.repeat(2000)}`;
    const genuine = keygrip('key', data);
    const tampered = `${genuine.slice(0, -1)}${genuine.endsWith('A') ? 'B' : 'A'}`;
    for (let i = 0; i < 3; i += 1) {
      expect(signer.index(data, genuine)).toBe(0);
      expect(signer.index(data, tampered)).toBe(-1);
    }
  });

  it('keeps verifying every pair once more pairs have verified than it remembers', () => {
    const signer = signingKeys(['key']);
    const pairs = Array.from({ length: 5000 }, (_, i) => [`cotizaciones.sid=${i}`, keygrip('key', `cotizaciones.sid=${i}`)] as const);
    for (const [data, digest] of pairs) expect(signer.index(data, digest)).toBe(0);
    for (const [data, digest] of pairs) expect(signer.index(data, digest)).toBe(0);
    expect(signer.index('cotizaciones.sid=0', pairs[1]![1])).toBe(-1);
  });
});
