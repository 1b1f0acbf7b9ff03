import { DEFAULT_LIMITS, PhpSessionDecodeError, type PhpDecodeLimits, type PhpKey, type PhpObject, type PhpValue } from './php-value.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

const COLON = 0x3a;
const SEMICOLON = 0x3b;
const QUOTE = 0x22;
const OPEN = 0x7b;
const CLOSE = 0x7d;
/** The shortest array element, `i:0;N;`: a declared count larger than the bytes left allows is refused before any work. */
const MIN_ELEMENT_BYTES = 6;

// PHP's float grammar in var_unserializer.re (iv, nv, nvexp), plus NAN and [-]INF.
const FLOAT = /^(?:[+-]?(?:\d+|\d*\.\d+|\d+\.\d*)(?:[eE][+-]?\d+)?|NAN|-?INF)$/;
// A string key PHP turns into an int key (ZEND_HANDLE_NUMERIC_STR): canonical decimal, no sign but '-', no leading zero.
const CANONICAL_INT = /^(?:0|-?[1-9]\d{0,18})$/;
// zend_is_valid_class_name, with namespaces.
const CLASS_NAME = /^[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*(?:\\[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*)*$/;

/**
 * Reads PHP's `serialize` format strictly, on bytes. One reader decodes one
 * session: back-reference slots are numbered across all its top-level values,
 * as PHP's var_hash numbers them (every value takes a slot except `R:` and
 * array/property keys; `r:` takes one and must point at an object).
 */
export class PhpReader {
  pos = 0;
  private readonly slots: (PhpValue | undefined)[] = [];
  private values = 0;
  private readonly limits: Required<PhpDecodeLimits>;

  constructor(
    readonly bytes: Uint8Array,
    limits: PhpDecodeLimits = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    if (bytes.length > this.limits.maxBytes) throw this.fail(`data of ${bytes.length} bytes exceeds the ${this.limits.maxBytes}-byte limit`);
  }

  get atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  fail(message: string): PhpSessionDecodeError {
    return new PhpSessionDecodeError(message, this.pos);
  }

  value(depth = 0): PhpValue {
    const type = this.bytes[this.pos];
    if (type === undefined) throw this.fail('unexpected end of data');
    if (++this.values > this.limits.maxValues) throw this.fail(`more than ${this.limits.maxValues} values`);
    if (type === 0x52 /* R */) return this.reference('R');
    const slot = this.slots.length;
    this.slots.push(undefined);
    const set = <T extends PhpValue>(value: T): T => {
      this.slots[slot] = value;
      return value;
    };
    switch (type) {
      case 0x4e /* N */:
        this.expect('N;');
        return set(null);
      case 0x62 /* b */: {
        this.expect('b:');
        const bit = this.bytes[this.pos];
        if (bit !== 0x30 && bit !== 0x31) throw this.fail('a boolean is b:0; or b:1;');
        this.pos += 1;
        this.expectByte(SEMICOLON);
        return set(bit === 0x31);
      }
      case 0x69 /* i */:
        this.expect('i:');
        return set(this.int(SEMICOLON));
      case 0x64 /* d */:
        this.expect('d:');
        return set(this.float());
      case 0x73 /* s */:
        this.expect('s:');
        return set(this.stringBody());
      case 0x61 /* a */:
        return this.array(depth, set);
      case 0x4f /* O */:
        return this.object(depth, set);
      case 0x45 /* E */:
        return set(this.enumCase());
      case 0x72 /* r */:
        return set(this.reference('r'));
      case 0x43 /* C */:
        // Serializable::unserialize runs user code that may number more slots: its data cannot be read faithfully.
        throw this.fail('a C: (Serializable) value is not supported');
      default:
        throw this.fail(`unexpected type ${JSON.stringify(String.fromCharCode(type))}`);
    }
  }

  private reference(kind: 'r' | 'R'): PhpValue {
    this.pos += 1;
    this.expectByte(COLON);
    const id = this.unsigned(SEMICOLON);
    const target = id >= 1 && id <= this.slots.length ? this.slots[id - 1] : undefined;
    if (target === undefined) throw this.fail(`reference ${kind}:${id} to no value`);
    if (kind === 'r' && !(typeof target === 'object' && target !== null && !(target instanceof Map))) {
      throw this.fail(`r:${id} must point at an object`);
    }
    return target;
  }

  /** A top-level array (php_serialize), telling where each element's value bytes are. */
  topLevelArray(onElement: (key: PhpKey, start: number, end: number) => void): Map<PhpKey, PhpValue> {
    if (++this.values > this.limits.maxValues) throw this.fail(`more than ${this.limits.maxValues} values`);
    const slot = this.slots.length;
    this.slots.push(undefined);
    return this.array(0, (value) => (this.slots[slot] = value), onElement);
  }

  private array(
    depth: number,
    set: (value: Map<PhpKey, PhpValue>) => Map<PhpKey, PhpValue>,
    onElement?: (key: PhpKey, start: number, end: number) => void,
  ): Map<PhpKey, PhpValue> {
    this.expect('a:');
    const count = this.count();
    this.expectByte(OPEN);
    const entries = set(new Map<PhpKey, PhpValue>());
    this.enter(depth);
    for (let i = 0; i < count; i += 1) {
      const key = this.key();
      const start = this.pos;
      entries.set(key, this.value(depth + 1));
      onElement?.(key, start, this.pos);
    }
    this.expectByte(CLOSE);
    return entries;
  }

  private object(depth: number, set: (value: PhpObject) => PhpObject): PhpObject {
    this.expect('O:');
    const className = this.className();
    this.expectByte(COLON);
    const count = this.count();
    this.expectByte(OPEN);
    const properties = new Map<string, PhpValue>();
    const object = set(Object.freeze({ kind: 'object' as const, className, properties }));
    this.enter(depth);
    for (let i = 0; i < count; i += 1) {
      const key = this.key();
      properties.set(typeof key === 'string' ? unmangle(key, this) : String(key), this.value(depth + 1));
    }
    this.expectByte(CLOSE);
    return object;
  }

  private enumCase(): PhpValue {
    this.expect('E:');
    const length = this.unsigned(COLON);
    const text = this.quoted(length);
    this.expectByte(SEMICOLON);
    const colon = text.indexOf(':');
    const className = text.slice(0, colon);
    const caseName = text.slice(colon + 1);
    if (colon < 0 || !CLASS_NAME.test(className) || !/^[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*$/.test(caseName)) {
      throw this.fail('an enum is E:len:"Class:Case";');
    }
    return Object.freeze({ kind: 'enum' as const, className, caseName });
  }

  private className(): string {
    const length = this.unsigned(COLON);
    const name = this.quoted(length);
    if (!CLASS_NAME.test(name)) throw this.fail('invalid class name');
    return name;
  }

  /** An array or property key: `i:` or `s:` only, taking no slot; numeric strings become ints, as in PHP. */
  private key(): PhpKey {
    const type = this.bytes[this.pos];
    if (type === 0x69) {
      this.expect('i:');
      return this.int(SEMICOLON);
    }
    if (type === 0x73) {
      this.expect('s:');
      const text = this.stringBody();
      if (CANONICAL_INT.test(text)) {
        const big = BigInt(text);
        if (big >= INT64_MIN && big <= INT64_MAX) return narrow(big);
      }
      return text;
    }
    throw this.fail('a key is an int or a string');
  }

  private count(): number {
    const count = this.unsigned(COLON);
    if (count * MIN_ELEMENT_BYTES > this.bytes.length - this.pos) throw this.fail(`${count} elements cannot fit in the data left`);
    return count;
  }

  private enter(depth: number): void {
    if (depth + 1 > this.limits.maxDepth) throw this.fail(`nesting deeper than ${this.limits.maxDepth}`);
  }

  /** `len:"bytes";` after `s:`. */
  private stringBody(): string {
    const length = this.unsigned(COLON);
    const text = this.quoted(length);
    this.expectByte(SEMICOLON);
    return text;
  }

  private quoted(length: number): string {
    this.expectByte(QUOTE);
    const end = this.pos + length;
    if (end >= this.bytes.length) throw this.fail(`a ${length}-byte string runs past the end`);
    const text = utf8.decode(this.bytes.subarray(this.pos, end));
    this.pos = end;
    this.expectByte(QUOTE);
    return text;
  }

  /** PHP's uiv and its terminator: digits only, at most ten (no length or count that large can fit). */
  private unsigned(terminator: number): number {
    const text = this.digitsUntil(terminator, 10);
    if (!/^\d+$/.test(text)) throw this.fail('expected an unsigned number');
    this.pos += 1;
    return Number(text);
  }

  /** PHP's iv, saturating at the 64-bit bounds as ZEND_STRTOL does. */
  private int(terminator: number): number | bigint {
    const text = this.digitsUntil(terminator, 40);
    if (!/^[+-]?\d+$/.test(text)) throw this.fail('expected an integer');
    this.pos += 1;
    if (text.length <= 15) return Number(text);
    let big = BigInt(text);
    if (big > INT64_MAX) big = INT64_MAX;
    if (big < INT64_MIN) big = INT64_MIN;
    return narrow(big);
  }

  private float(): number {
    const text = this.digitsUntil(SEMICOLON, 400);
    this.pos += 1;
    if (!FLOAT.test(text)) throw this.fail('expected a float');
    if (text === 'NAN') return Number.NaN;
    if (text === 'INF') return Number.POSITIVE_INFINITY;
    if (text === '-INF') return Number.NEGATIVE_INFINITY;
    return Number(text);
  }

  /** The ASCII text up to (not including) `terminator`, at most `max` bytes; leaves pos on the terminator. */
  private digitsUntil(terminator: number, max: number): string {
    const start = this.pos;
    const limit = Math.min(this.bytes.length, start + max + 1);
    let end = start;
    while (end < limit && this.bytes[end] !== terminator) end += 1;
    if (this.bytes[end] !== terminator) throw this.fail('malformed number');
    this.pos = end;
    return String.fromCharCode(...this.bytes.subarray(start, end));
  }

  private expect(text: string): void {
    for (let i = 0; i < text.length; i += 1) {
      if (this.bytes[this.pos + i] !== text.charCodeAt(i)) throw this.fail(`expected ${JSON.stringify(text)}`);
    }
    this.pos += text.length;
  }

  private expectByte(byte: number): void {
    if (this.bytes[this.pos] !== byte) throw this.fail(`expected ${JSON.stringify(String.fromCharCode(byte))}`);
    this.pos += 1;
  }
}

/** Decodes one serialized value; trailing bytes are refused. */
export function unserializePhp(bytes: Uint8Array, limits?: PhpDecodeLimits): PhpValue {
  const reader = new PhpReader(bytes, limits);
  const value = reader.value();
  if (!reader.atEnd) throw reader.fail('trailing bytes after the value');
  return value;
}

function narrow(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** `\0Class\0name` (private) and `\0*\0name` (protected) are both just `name` as data. */
function unmangle(name: string, reader: PhpReader): string {
  if (!name.startsWith('\0')) return name;
  const second = name.indexOf('\0', 1);
  if (second < 0) throw reader.fail('malformed private or protected property name');
  return name.slice(second + 1);
}
