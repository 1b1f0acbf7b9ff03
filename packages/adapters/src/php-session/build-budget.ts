import { PhpSessionDecodeError } from './php-value.js';

/**
 * What a reader may build from n bytes of session data: BUILD_FACTOR × n values and
 * BUILD_FACTOR × n UTF-16 code units of strings. Every PHP writer needs at least one byte
 * per value it writes and, for a string it writes whole, at least its byte length (a string's
 * JS length never exceeds its UTF-8 byte length); a back-reference (`R:`, `r:`, igbinary's ref
 * and string index) is built once and then shared, costing 1 value and 0 bytes. The largest
 * honest ratio is an object's int property name made a string (igbinary `07 ff`, 2 bytes, is
 * "-255", and a 64-bit int's 9 bytes up to 20 characters): about 2.2. So 4 keeps twice that
 * margin for every session PHP writes, while 1 MiB of data can never become more than 8 MB of
 * strings (values stay within `maxValues` too): a session costs a bounded multiple of its own size.
 */
export const BUILD_FACTOR = 4;

/** How many values and string code units a reader built (references counted once, as shared). */
export interface BuildWork {
  readonly values: number;
  readonly bytes: number;
}

/** Counts what one reader builds; past {@link BUILD_FACTOR} × the data's length the data is refused. */
export class BuildBudget implements BuildWork {
  values = 0;
  bytes = 0;
  private readonly maxValues: number;
  private readonly maxBytes: number;

  constructor(inputBytes: number) {
    this.maxValues = BUILD_FACTOR * inputBytes;
    this.maxBytes = BUILD_FACTOR * inputBytes;
  }

  /** One more value built (`at`: where the reader is, for the error). */
  value(at: number): void {
    if (++this.values > this.maxValues) throw new PhpSessionDecodeError(`building more than ${this.maxValues} values`, at);
  }

  /** A string of `length` code units built. */
  text(length: number, at: number): void {
    this.bytes += length;
    if (this.bytes > this.maxBytes) throw new PhpSessionDecodeError(`building more than ${this.maxBytes} bytes of strings`, at);
  }
}
