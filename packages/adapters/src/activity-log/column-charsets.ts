// What a column's character set can store, and how many bytes a character takes in it: the two
// things a text column's declared limits are measured with. A character set not listed here is not
// judged (the database refuses what it cannot store, the rare case).

export interface Charset {
  /** The name the database gives it, for messages. */
  readonly name: string;
  /** Matches a character the charset cannot store; undefined when it stores every character. */
  readonly unstorable: RegExp | undefined;
  /** The same, for JSON text (which writes control characters as escapes). */
  readonly unstorableInJson: RegExp | undefined;
  /** Bytes of one code point in this charset; undefined when not counted here. */
  readonly encoding: 'utf8' | 'single-byte' | undefined;
}

/** A 4-byte UTF-8 character (outside the BMP: emoji, some CJK), as a UTF-16 surrogate pair. */
const FOUR_BYTE_CHARACTER = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;
/** MySQL's latin1 is Windows-1252, with its five undefined bytes mapped to the C1 code points of the same value. */
// eslint-disable-next-line no-control-regex -- NUL is one the charset stores
const NOT_LATIN1 = /[^\u0000-\u007F\u0081\u008D\u008F\u0090\u009D\u00A0-\u00FF€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/;
// eslint-disable-next-line no-control-regex -- NUL is one the charset stores
const NOT_ASCII = /[^\u0000-\u007F]/;
/** PostgreSQL stores no NUL character in a text value, whatever its encoding. */
// eslint-disable-next-line no-control-regex -- NUL is the character looked for
const NUL = /\u0000/;

export function mysqlCharset(name: string | null): Charset | undefined {
  switch (name) {
    case null:
      return undefined;
    case 'utf8mb4':
      return { name, unstorable: undefined, unstorableInJson: undefined, encoding: 'utf8' };
    case 'utf8mb3':
    case 'utf8':
      return { name, unstorable: FOUR_BYTE_CHARACTER, unstorableInJson: FOUR_BYTE_CHARACTER, encoding: 'utf8' };
    case 'latin1':
      return { name, unstorable: NOT_LATIN1, unstorableInJson: NOT_LATIN1, encoding: 'single-byte' };
    case 'ascii':
      return { name, unstorable: NOT_ASCII, unstorableInJson: NOT_ASCII, encoding: 'single-byte' };
    default:
      return { name, unstorable: undefined, unstorableInJson: undefined, encoding: undefined };
  }
}

/** A PostgreSQL text column in the database's encoding (`server_encoding`). */
export function postgresCharset(serverEncoding: string): Charset {
  return { name: serverEncoding, unstorable: NUL, unstorableInJson: undefined, encoding: serverEncoding === 'UTF8' ? 'utf8' : undefined };
}

const utf8Bytes = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);
const oneByte = () => 1;

/** Bytes one code point takes in `encoding`. */
export function bytesOfCodePoint(encoding: Charset['encoding']): ((codePoint: number) => number) | undefined {
  return encoding === 'utf8' ? utf8Bytes : encoding === 'single-byte' ? oneByte : undefined;
}

/** Bytes `value` takes in `encoding`, counted without copying it. */
export function byteLength(value: string, encoding: 'utf8' | 'single-byte'): number {
  return encoding === 'utf8' ? Buffer.byteLength(value, 'utf8') : value.length;
}

/** The most bytes one UTF-16 unit can take in `encoding` (a surrogate pair: 4 bytes for 2 units). */
export function bytesPerUnit(encoding: 'utf8' | 'single-byte'): number {
  return encoding === 'utf8' ? 3 : 1;
}
