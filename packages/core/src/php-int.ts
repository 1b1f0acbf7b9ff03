const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const TWO_POW_63 = 2 ** 63;

/** Whether `value` fits a signed 64-bit integer: what an entity id is (PHP's int, the tables' BIGINT). */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

// PHP's numeric-string grammar: whitespace, sign, digits with an optional fraction, optional exponent.
const NUMERIC_PREFIX = /^[ \t\n\r\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)/;

/**
 * PHP's `(int)` cast of a string, as a 64-bit integer: the longest numeric
 * prefix, truncated toward zero. Integer strings are exact and saturate at the
 * 64-bit bounds; strings with a fraction or exponent go through a double, as in
 * PHP (where an infinite double casts to 0).
 */
export function phpIntCast(text: string): bigint {
  const match = NUMERIC_PREFIX.exec(text);
  const literal = match?.[1];
  if (literal === undefined) return 0n;
  if (!/[.eE]/.test(literal)) return integer(literal);
  const double = Number(literal);
  if (!Number.isFinite(double)) return 0n;
  if (double >= TWO_POW_63) return INT64_MAX;
  if (double < -TWO_POW_63) return INT64_MIN;
  return BigInt(Math.trunc(double));
}

/**
 * An integer literal with more than 19 significant digits is beyond 64 bits:
 * it saturates without going through BigInt, whose parse grows worse than
 * linearly (a 1 MiB id took ~160 ms).
 */
function integer(literal: string): bigint {
  const negative = literal.startsWith('-');
  const digits = literal.replace(/^[+-]?0*/, '') || '0';
  if (digits.length > 19) return negative ? INT64_MIN : INT64_MAX;
  return clamp(BigInt(negative ? `-${digits}` : digits));
}

function clamp(value: bigint): bigint {
  if (value > INT64_MAX) return INT64_MAX;
  if (value < INT64_MIN) return INT64_MIN;
  return value;
}
