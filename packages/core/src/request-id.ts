/**
 * What a request id may be: the service takes `X-Request-Id` only when it matches (else it makes
 * one), and a replayed activity entry must carry one that does. Bounded, and free of anything a log
 * or a header could misread.
 */
const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

export function isRequestId(value: string): boolean {
  return REQUEST_ID_PATTERN.test(value);
}
