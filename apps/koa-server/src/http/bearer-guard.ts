import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks an `Authorization` header against `Bearer <token>` in constant time: both sides are
 * hashed first, so the comparison neither stops at the first differing byte nor reveals the length.
 */
export function bearerMatcher(token: string): (authorization: string) => boolean {
  const expected = sha256(`Bearer ${token}`);
  return (authorization) => timingSafeEqual(sha256(authorization), expected);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
