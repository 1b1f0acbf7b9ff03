/**
 * A PHP value as `unserialize` would build it, as plain data (nothing is ever
 * instantiated). Ints outside JavaScript's safe range are `bigint`; strings are
 * PHP byte strings read as UTF-8 (invalid sequences become U+FFFD: a legacy
 * Latin-1 name must not sign its user out). Arrays keep PHP's order and key types.
 */
export type PhpValue = null | boolean | number | bigint | string | PhpArray | PhpObject | PhpEnum;

/** An array key: an int (as `number`, or `bigint` beyond 2^53) or a string. */
export type PhpKey = number | bigint | string;

export type PhpArray = Map<PhpKey, PhpValue>;

/** An object as data: its class name and its properties (private and protected names unmangled). */
export interface PhpObject {
  readonly kind: 'object';
  readonly className: string;
  readonly properties: Map<string, PhpValue>;
}

/** An enum case (`E:`), as data. */
export interface PhpEnum {
  readonly kind: 'enum';
  readonly className: string;
  readonly caseName: string;
}

export function isPhpObject(value: PhpValue | undefined): value is PhpObject {
  return typeof value === 'object' && value !== null && !(value instanceof Map) && value.kind === 'object';
}

/** Every failure to read PHP session data: malformed, truncated, padded, too large or too deep. */
export class PhpSessionDecodeError extends Error {
  override readonly name = 'PhpSessionDecodeError';
  constructor(
    message: string,
    /** Byte offset in the input where reading stopped. */
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
  }
}

export interface PhpDecodeLimits {
  /** Nesting of arrays and objects (PHP's own default is 4096; sessions are shallow). */
  readonly maxDepth?: number;
  /** Input size in bytes. */
  readonly maxBytes?: number;
  /** Values in total, references included. */
  readonly maxValues?: number;
  /** What may be built per byte of data: that many values, and that many bytes of strings (see {@link BUILD_FACTOR}). */
  readonly buildFactor?: number;
}

/**
 * Every PHP writer spends at least one byte per value it writes and, on a string it writes
 * whole, at least its byte length (a string's JS length never exceeds its UTF-8 byte length); a
 * back-reference (`R:`, `r:`, igbinary's ref and string index) is built once and then shared,
 * costing 1 value and 0 bytes. The largest honest ratio is an object's int property name made a
 * string (igbinary `07 ff`, 2 bytes, is "-255"; a 64-bit int's 9 bytes up to 20 characters):
 * about 2.2. So 4 leaves twice that margin for every session PHP writes, while 1 MiB of data can
 * never become more than 4 MiB of strings (values stay within `maxValues` too).
 */
export const BUILD_FACTOR = 4;

export const DEFAULT_LIMITS: Required<PhpDecodeLimits> = {
  maxDepth: 64,
  maxBytes: 1024 * 1024,
  maxValues: 100_000,
  buildFactor: BUILD_FACTOR,
};
