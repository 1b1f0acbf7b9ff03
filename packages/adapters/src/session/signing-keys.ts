import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** What the cookies library needs of `app.keys`: keygrip's interface. */
export interface SigningKeys {
  sign(data: string): string;
  verify(data: string, digest: string): boolean;
  index(data: string, digest: string): number;
  /** How many keys verify (the first also signs). */
  readonly count: number;
}

/** How many verified (signature, cookie) pairs are remembered, the oldest forgotten first. */
const VERIFIED_PAIRS = 4096;
/** Longer pairs are verified every time: with this cap the memory stays under ~5 MB, whatever records the service signs. */
const REMEMBERED_PAIR_CHARS = 1024;

/**
 * Keygrip's HMAC-SHA1 base64url signatures (the format koa-session cookies
 * carry), compared with `timingSafeEqual`. Keygrip itself compares through a
 * second HMAC under a fresh random key on every check.
 */
export function signingKeys(keys: readonly string[]): SigningKeys {
  // Keys imported once: createHmac with a string key imports it again on every call.
  const secrets = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  const first = secrets[0] ?? createSecretKey(Buffer.alloc(0));
  const sign = (key: KeyObject, data: string) => createHmac('sha1', key).update(data).digest('base64url');
  const check = (data: string, digest: string) => {
    const given = Buffer.from(digest);
    return secrets.findIndex((key) => {
      const expected = Buffer.from(sign(key, data));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  };
  // A browser sends the same signed cookie on every request (re-signed at most once a minute): its
  // HMAC is remembered. Only pairs that verified are kept, so guesses cannot fill it, and a hit needs
  // the exact signed pair, which only its holder has.
  const verified = new Map<string, number>();
  const index = (data: string, digest: string) => {
    const pair = `${digest} ${data}`;
    const known = verified.get(pair);
    if (known !== undefined) return known;
    const found = check(data, digest);
    if (found >= 0 && pair.length <= REMEMBERED_PAIR_CHARS) {
      if (verified.size >= VERIFIED_PAIRS) verified.delete(verified.keys().next().value as string);
      verified.set(pair, found);
    }
    return found;
  };
  return {
    sign: (data) => sign(first, data),
    verify: (data, digest) => index(data, digest) >= 0,
    index,
    count: secrets.length,
  };
}
