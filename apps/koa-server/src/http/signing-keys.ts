import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the cookies library needs of `app.keys`: keygrip's interface. */
export interface SigningKeys {
  sign(data: string): string;
  verify(data: string, digest: string): boolean;
  index(data: string, digest: string): number;
}

/**
 * Keygrip's HMAC-SHA1 base64url signatures (the format koa-session cookies
 * carry), compared with `timingSafeEqual`. Keygrip itself compares through a
 * second HMAC under a fresh random key, which cost ~4 % of the CPU per request.
 */
export function signingKeys(keys: readonly string[]): SigningKeys {
  const sign = (key: string, data: string) => createHmac('sha1', key).update(data).digest('base64url');
  const index = (data: string, digest: string) => {
    const given = Buffer.from(digest);
    return keys.findIndex((key) => {
      const expected = Buffer.from(sign(key, data));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  };
  return {
    sign: (data) => sign(keys[0] ?? '', data),
    verify: (data, digest) => index(data, digest) >= 0,
    index,
  };
}
