import { PhpSessionDecodeError } from './php-value.js';

/** How many values and bytes of strings a reader built (what a reference names counted once, as shared). */
export interface BuildWork {
  readonly values: number;
  readonly bytes: number;
}

/** Counts what one reader builds; past `factor` (BUILD_FACTOR) × the data's length the data is refused, before building more. */
export class BuildBudget implements BuildWork {
  values = 0;
  bytes = 0;
  private readonly maxValues: number;
  private readonly maxBytes: number;

  constructor(inputBytes: number, factor: number) {
    this.maxValues = Math.floor(factor * inputBytes);
    this.maxBytes = Math.floor(factor * inputBytes);
  }

  /** One more value built (`at`: where the reader is, for the error). */
  value(at: number): void {
    if (++this.values > this.maxValues) throw new PhpSessionDecodeError(`building more than ${this.maxValues} values`, at);
  }

  /** A string of `length` bytes about to be built (or a made name of that many code units). */
  text(length: number, at: number): void {
    this.bytes += length;
    if (this.bytes > this.maxBytes) throw new PhpSessionDecodeError(`building more than ${this.maxBytes} bytes of strings`, at);
  }
}
