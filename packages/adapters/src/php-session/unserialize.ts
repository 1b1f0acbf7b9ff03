import { BuildBudget, type BuildWork } from './build-budget.js';
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
export const CLASS_NAME = /^[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*(?:\\[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*)*$/;

/** How many stepped-over values may be built one from inside another (a reference in one naming the next). */
export const MAX_REFERENCE_CHAIN = 16;

/** The flag on a slot's depth once its value was stepped over (a depth stays below it). */
export const SKIPPED = 0x80;

/** What PHP makes of a `C:` (Serializable) value whose class it does not have: no user code runs. */
export const INCOMPLETE_CLASS = '__PHP_Incomplete_Class';
/** The one property of such an object: its class's name. */
export const INCOMPLETE_CLASS_NAME = `${INCOMPLETE_CLASS}_Name`;

/**
 * Reads PHP's `serialize` format strictly, on bytes. One reader decodes one
 * session: back-reference slots are numbered across all its top-level values,
 * as PHP's var_hash numbers them (every value takes a slot except `R:` and
 * array/property keys; `r:` takes one and must point at an object).
 *
 * A value is either built (`value`) or only checked and stepped over (`skip`),
 * which allocates nothing: a session's cost follows its size, and only the values
 * the service uses are built. A skipped value a built one refers to (`R:`, `r:`)
 * is built then, from where it starts, once: it stays in its slot, and building
 * a value around it later takes it from there. What is built is counted against
 * a {@link BuildBudget}.
 */
export class PhpReader {
  pos = 0;
  /** Built values by slot; a skipped slot stays empty until a reference needs it. */
  private readonly slots: (PhpValue | undefined)[] = [];
  /**
   * Per slot, where its value starts, and its depth with the top bit set once the value was stepped
   * over whole: what building a skipped value later needs. Typed arrays, grown by doubling: nothing
   * for the collector to trace, however many values a session holds.
   */
  private starts = new Int32Array(256);
  private depths = new Uint8Array(256);
  /** Per value built by {@link materialize}: where it ends and the slot count after it, to step over it when what holds it is built. */
  private readonly rebuilt = new Map<number, { readonly end: number; readonly slots: number }>();
  private slotCount = 0;
  private values = 0;
  /** Off while a skipped value is built again: its values were counted when it was checked. */
  private counting = true;
  /** How many {@link materialize} calls are under way, one inside the other. */
  private chained = 0;
  private readonly limits: Required<PhpDecodeLimits>;
  private readonly length: number;
  private readonly budget: BuildBudget;

  constructor(
    readonly bytes: Uint8Array,
    limits: PhpDecodeLimits = {},
  ) {
    this.limits = limitsFor(bytes, limits);
    this.length = bytes.length;
    this.budget = new BuildBudget(bytes.length, this.limits.buildFactor);
  }

  get atEnd(): boolean {
    return this.pos >= this.length;
  }

  /** What this reader has built so far: a deterministic measure of its work. */
  get built(): BuildWork {
    return { values: this.budget.values, bytes: this.budget.bytes };
  }

  fail(message: string): PhpSessionDecodeError {
    return new PhpSessionDecodeError(message, this.pos);
  }

  private count1(): void {
    if (this.counting && ++this.values > this.limits.maxValues) throw this.fail(`more than ${this.limits.maxValues} values`);
  }

  private takeSlot(depth: number): number {
    const slot = this.slotCount++;
    if (slot === this.starts.length) {
      this.starts = grow(this.starts);
      this.depths = grow(this.depths);
    }
    this.starts[slot] = this.pos;
    this.depths[slot] = depth;
    return slot;
  }

  /** Builds the value at `pos`. */
  value(depth = 0): PhpValue {
    const type = this.bytes[this.pos];
    if (type === undefined) throw this.fail('unexpected end of data');
    this.count1();
    this.budget.value(this.pos);
    if (type === 0x52 /* R */) return this.reference('R');
    // Only while a skipped value is built: a value inside it a reference built already.
    if (this.chained > 0 && this.slots[this.slotCount] !== undefined) return this.builtAlready();
    const slot = this.takeSlot(depth);
    const set = <T extends PhpValue>(value: T): T => {
      this.slots[slot] = value;
      return value;
    };
    switch (type) {
      case 0x4e /* N */:
        this.expect2(0x4e, SEMICOLON);
        return set(null);
      case 0x62 /* b */:
        return set(this.boolean());
      case 0x69 /* i */:
        this.expect2(0x69, COLON);
        return set(this.int(SEMICOLON));
      case 0x64 /* d */:
        this.expect2(0x64, COLON);
        return set(this.float());
      case 0x73 /* s */:
        this.expect2(0x73, COLON);
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
        return set(this.custom());
      default:
        throw this.fail(`unexpected type ${JSON.stringify(String.fromCharCode(type))}`);
    }
  }

  /** Checks the value at `pos` by the same rules as {@link value} and steps over it, building nothing. */
  skip(depth = 0): void {
    const type = this.bytes[this.pos];
    if (type === undefined) throw this.fail('unexpected end of data');
    this.count1();
    if (type === 0x52 /* R */) {
      this.skipReference(false);
      return;
    }
    const slot = this.takeSlot(depth);
    this.skipBody(type, depth);
    this.depths[slot] = depth | SKIPPED;
  }

  /**
   * The value of the next slot, built already by {@link materialize} (a value inside one being built is
   * reached only through it): stepped over, with the slots inside it.
   */
  private builtAlready(): PhpValue {
    const slot = this.slotCount;
    const after = this.rebuilt.get(slot)!;
    this.pos = after.end;
    this.slotCount = after.slots;
    return this.slots[slot]!;
  }

  private skipBody(type: number, depth: number): void {
    switch (type) {
      case 0x4e /* N */:
        this.expect2(0x4e, SEMICOLON);
        return;
      case 0x62 /* b */:
        this.boolean();
        return;
      case 0x69 /* i */:
        this.expect2(0x69, COLON);
        this.skipInt(SEMICOLON);
        return;
      case 0x64 /* d */:
        this.expect2(0x64, COLON);
        this.skipFloat();
        return;
      case 0x73 /* s */:
        this.expect2(0x73, COLON);
        this.skipStringBody();
        return;
      case 0x61 /* a */: {
        this.expect2(0x61, COLON);
        const count = this.count();
        this.expectByte(OPEN);
        this.enter(depth);
        for (let i = 0; i < count; i += 1) {
          this.skipKey(false);
          this.skip(depth + 1);
        }
        this.expectByte(CLOSE);
        return;
      }
      case 0x4f /* O */: {
        this.expect2(0x4f, COLON);
        this.className();
        this.expectByte(COLON);
        const count = this.count();
        this.expectByte(OPEN);
        this.enter(depth);
        for (let i = 0; i < count; i += 1) {
          this.skipKey(true);
          this.skip(depth + 1);
        }
        this.expectByte(CLOSE);
        return;
      }
      case 0x45 /* E */:
        this.enumCase();
        return;
      case 0x72 /* r */:
        this.skipReference(true);
        return;
      case 0x43 /* C */:
        this.custom();
        return;
      default:
        throw this.fail(`unexpected type ${JSON.stringify(String.fromCharCode(type))}`);
    }
  }

  private reference(kind: 'r' | 'R'): PhpValue {
    const id = this.referenceId();
    let target = this.slots[id - 1];
    // A value that was stepped over: built now, from where it starts.
    if (target === undefined && ((this.depths[id - 1] ?? 0) & SKIPPED) !== 0) target = this.materialize(id - 1);
    if (target === undefined) throw this.fail(`reference ${kind}:${id} to no value`);
    if (kind === 'r' && !(typeof target === 'object' && target !== null && !(target instanceof Map))) {
      throw this.fail(`r:${id} must point at an object`);
    }
    return target;
  }

  private skipReference(mustBeObject: boolean): void {
    const id = this.referenceId();
    if (!mustBeObject) return;
    // An r: takes its slot before it is read: pointing at itself is pointing at no value.
    if (id === this.slotCount) throw this.fail(`reference r:${id} to no value`);
    const built = this.slots[id - 1];
    // Objects start with O, C or E, or are r: to one (checked when that r: was read).
    const isObject =
      built !== undefined
        ? typeof built === 'object' && built !== null && !(built instanceof Map)
        : [0x4f, 0x43, 0x45, 0x72].includes(this.bytes[this.starts[id - 1] ?? -1] ?? 0);
    if (!isObject) throw this.fail(`r:${id} must point at an object`);
  }

  /** `R:n;` or `r:n;`: n names a slot already taken. */
  private referenceId(): number {
    this.pos += 1;
    this.expectByte(COLON);
    const id = this.unsigned(SEMICOLON);
    if (id < 1 || id > this.slotCount) {
      this.pos -= 1;
      throw this.fail(`reference to no value (${id})`);
    }
    return id;
  }

  private materialize(slot: number): PhpValue {
    // Each stepped-over value built from inside another nests the reading once more: bounded, so that
    // no chain of references can exhaust the stack (PHP builds every value as it goes; this reader does not).
    if (this.chained >= MAX_REFERENCE_CHAIN)
      throw this.fail(`references to stepped-over values chained more than ${MAX_REFERENCE_CHAIN} deep`);
    this.chained += 1;
    const { pos, slotCount, counting } = this;
    this.pos = this.starts[slot] ?? 0;
    this.slotCount = slot;
    this.counting = false;
    try {
      // Kept in its slot by value(); where it ends, for building what holds it later.
      const value = this.value((this.depths[slot] ?? 0) & ~SKIPPED);
      this.rebuilt.set(slot, { end: this.pos, slots: this.slotCount });
      return value;
    } finally {
      this.pos = pos;
      this.slotCount = slotCount;
      this.counting = counting;
      this.chained -= 1;
    }
  }

  /** A top-level array (php_serialize), telling where each element's value bytes are; `build` says which elements to build. */
  topLevelArray(
    onElement: (key: PhpKey, start: number, end: number) => void,
    build: (key: PhpKey) => boolean = () => true,
  ): Map<PhpKey, PhpValue> {
    this.count1();
    const slot = this.takeSlot(0);
    return this.array(0, (value) => (this.slots[slot] = value), onElement, build);
  }

  private array(
    depth: number,
    set: (value: Map<PhpKey, PhpValue>) => Map<PhpKey, PhpValue>,
    onElement?: (key: PhpKey, start: number, end: number) => void,
    build: (key: PhpKey) => boolean = () => true,
  ): Map<PhpKey, PhpValue> {
    this.expect2(0x61, COLON);
    const count = this.count();
    this.expectByte(OPEN);
    const entries = set(new Map<PhpKey, PhpValue>());
    this.enter(depth);
    for (let i = 0; i < count; i += 1) {
      const key = this.key();
      const start = this.pos;
      if (build(key)) entries.set(key, this.value(depth + 1));
      else this.skip(depth + 1);
      onElement?.(key, start, this.pos);
    }
    this.expectByte(CLOSE);
    return entries;
  }

  private object(depth: number, set: (value: PhpObject) => PhpObject): PhpObject {
    this.expect2(0x4f, COLON);
    const className = this.className();
    this.expectByte(COLON);
    const count = this.count();
    this.expectByte(OPEN);
    const properties = new Map<string, PhpValue>();
    const object = set(Object.freeze({ kind: 'object' as const, className, properties }));
    this.enter(depth);
    for (let i = 0; i < count; i += 1) {
      const key = this.key();
      const name = typeof key === 'string' ? unmangle(key, this) : String(key);
      if (name !== key) this.budget.text(name.length, this.pos);
      properties.set(name, this.value(depth + 1));
    }
    this.expectByte(CLOSE);
    return object;
  }

  /**
   * `C:len:"Class":datalen:{data}`: an old-style Serializable. PHP without the class (as the service
   * is) runs no code and makes an incomplete object of it, its data skipped by its declared length.
   */
  private custom(): PhpObject {
    this.expect2(0x43, COLON);
    const className = this.className();
    this.expectByte(COLON);
    const length = this.unsigned(COLON);
    this.expectByte(OPEN);
    const end = this.pos + length;
    if (end >= this.length || this.bytes[end] !== CLOSE) throw this.fail(`a ${length}-byte C: payload does not end where it says`);
    this.pos = end + 1;
    return Object.freeze({
      kind: 'object' as const,
      className: INCOMPLETE_CLASS,
      properties: new Map([[INCOMPLETE_CLASS_NAME, className]]),
    });
  }

  private enumCase(): PhpValue {
    this.expect2(0x45, COLON);
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

  private boolean(): boolean {
    this.expect2(0x62, COLON);
    const bit = this.bytes[this.pos];
    if (bit !== 0x30 && bit !== 0x31) throw this.fail('a boolean is b:0; or b:1;');
    this.pos += 1;
    this.expectByte(SEMICOLON);
    return bit === 0x31;
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
      this.expect2(0x69, COLON);
      return this.int(SEMICOLON);
    }
    if (type === 0x73) {
      this.expect2(0x73, COLON);
      const text = this.stringBody();
      if (CANONICAL_INT.test(text)) {
        const big = BigInt(text);
        if (big >= INT64_MIN && big <= INT64_MAX) return narrow(big);
      }
      return text;
    }
    throw this.fail('a key is an int or a string');
  }

  /** {@link key} checked and stepped over; a property name that starts with NUL must be a whole mangled name. */
  private skipKey(property: boolean): void {
    const type = this.bytes[this.pos];
    if (type === 0x69) {
      this.expect2(0x69, COLON);
      this.skipInt(SEMICOLON);
      return;
    }
    if (type !== 0x73) throw this.fail('a key is an int or a string');
    this.expect2(0x73, COLON);
    const start = this.pos;
    this.skipStringBody();
    if (property) {
      const text = this.bytes.subarray(this.bytes.indexOf(QUOTE, start) + 1, this.pos - 2);
      if (text[0] === 0 && text.indexOf(0, 1) < 0) throw this.fail('malformed private or protected property name');
    }
  }

  private count(): number {
    const count = this.unsigned(COLON);
    if (count * MIN_ELEMENT_BYTES > this.length - this.pos) throw this.fail(`${count} elements cannot fit in the data left`);
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

  private skipStringBody(): void {
    const length = this.unsigned(COLON);
    this.expectByte(QUOTE);
    const end = this.pos + length;
    if (end >= this.length) throw this.fail(`a ${length}-byte string runs past the end`);
    this.pos = end;
    this.expectByte(QUOTE);
    this.expectByte(SEMICOLON);
  }

  private quoted(length: number): string {
    this.expectByte(QUOTE);
    const end = this.pos + length;
    if (end >= this.length) throw this.fail(`a ${length}-byte string runs past the end`);
    this.budget.text(length, this.pos);
    const text = utf8.decode(this.bytes.subarray(this.pos, end));
    this.pos = end;
    this.expectByte(QUOTE);
    return text;
  }

  /** PHP's uiv and its terminator: digits only, at most ten (no length or count that large can fit). */
  private unsigned(terminator: number): number {
    const { bytes } = this;
    const start = this.pos;
    const limit = Math.min(this.length, start + 11);
    let value = 0;
    let at = start;
    for (; at < limit; at += 1) {
      const byte = bytes[at]!;
      if (byte === terminator) break;
      if (byte < 0x30 || byte > 0x39) {
        this.pos = at;
        throw this.fail('expected an unsigned number');
      }
      value = value * 10 + (byte - 0x30);
    }
    if (at === start || bytes[at] !== terminator) {
      this.pos = at;
      throw this.fail('malformed number');
    }
    this.pos = at + 1;
    return value;
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

  /** {@link int}'s grammar, stepped over: a sign, then digits, as many bytes as {@link int} reads, then the terminator. */
  private skipInt(terminator: number): void {
    const { bytes } = this;
    const start = this.pos;
    let at = start;
    if (bytes[at] === 0x2b || bytes[at] === 0x2d) at += 1;
    const digits = at;
    while (at < this.length && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at += 1;
    if (at === digits || at - start > 41 || bytes[at] !== terminator) {
      this.pos = at;
      throw this.fail('expected an integer');
    }
    this.pos = at + 1;
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

  /** Where the ASCII digits from `from` end. */
  private digitsFrom(from: number): number {
    let end = from;
    while (end < this.length && this.bytes[end]! >= 0x30 && this.bytes[end]! <= 0x39) end += 1;
    return end;
  }

  /** {@link float}'s grammar, stepped over byte by byte (FLOAT, without building the text). */
  private skipFloat(): void {
    const { bytes } = this;
    const start = this.pos;
    let at = start;
    const first = bytes[at];
    // NAN, INF, -INF: the only words.
    if (first === 0x4e || first === 0x49 || (first === 0x2d && bytes[at + 1] === 0x49)) {
      const word = first === 0x4e ? 'NAN' : first === 0x49 ? 'INF' : '-INF';
      for (let i = 0; i < word.length; i += 1) if (bytes[at + i] !== word.charCodeAt(i)) at = -1;
      if (at >= 0) at += word.length;
    } else {
      if (bytes[at] === 0x2b || bytes[at] === 0x2d) at += 1;
      const intEnd = this.digitsFrom(at);
      let mantissa = intEnd > at;
      at = intEnd;
      if (bytes[at] === 0x2e) {
        const fractionEnd = this.digitsFrom(at + 1);
        mantissa ||= fractionEnd > at + 1;
        at = fractionEnd;
      }
      if (!mantissa) at = -1;
      else if (bytes[at] === 0x65 || bytes[at] === 0x45) {
        let exponent = at + 1;
        if (bytes[exponent] === 0x2b || bytes[exponent] === 0x2d) exponent += 1;
        const exponentEnd = this.digitsFrom(exponent);
        at = exponentEnd > exponent ? exponentEnd : -1;
      }
    }
    if (at < 0 || at - start > 400 || bytes[at] !== SEMICOLON) {
      this.pos = Math.max(at, start);
      throw this.fail('expected a float');
    }
    this.pos = at + 1;
  }

  /** The ASCII text up to (not including) `terminator`, at most `max` bytes; leaves pos on the terminator. */
  private digitsUntil(terminator: number, max: number): string {
    const start = this.pos;
    const limit = Math.min(this.length, start + max + 1);
    let end = start;
    while (end < limit && this.bytes[end] !== terminator) end += 1;
    if (this.bytes[end] !== terminator) throw this.fail('malformed number');
    this.pos = end;
    return String.fromCharCode(...this.bytes.subarray(start, end));
  }

  /** The type byte and the separator after it (`i:`, `N;`…). */
  private expect2(first: number, second: number): void {
    if (this.bytes[this.pos] !== first || this.bytes[this.pos + 1] !== second)
      throw this.fail(`expected ${JSON.stringify(String.fromCharCode(first, second))}`);
    this.pos += 2;
  }

  private expectByte(byte: number): void {
    if (this.bytes[this.pos] !== byte) throw this.fail(`expected ${JSON.stringify(String.fromCharCode(byte))}`);
    this.pos += 1;
  }
}

/** The limits with their defaults, the depth kept below {@link SKIPPED}; data larger than `maxBytes` is refused. */
export function limitsFor(bytes: Uint8Array, limits: PhpDecodeLimits): Required<PhpDecodeLimits> {
  const merged = { ...DEFAULT_LIMITS, ...limits };
  if (bytes.length > merged.maxBytes)
    throw new PhpSessionDecodeError(`data of ${bytes.length} bytes exceeds the ${merged.maxBytes}-byte limit`, 0);
  return { ...merged, maxDepth: Math.min(merged.maxDepth, SKIPPED - 1) };
}

/** Decodes one serialized value; trailing bytes are refused. */
export function unserializePhp(bytes: Uint8Array, limits?: PhpDecodeLimits): PhpValue {
  const reader = new PhpReader(bytes, limits);
  const value = reader.value();
  if (!reader.atEnd) throw reader.fail('trailing bytes after the value');
  return value;
}

/** The same typed array, twice as long. */
export function grow<T extends Int32Array | Uint8Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

export function narrow(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** `\0Class\0name` (private) and `\0*\0name` (protected) are both just `name` as data. */
export function unmangle(name: string, reader: { fail(message: string): PhpSessionDecodeError }): string {
  if (!name.startsWith('\0')) return name;
  const second = name.indexOf('\0', 1);
  if (second < 0) throw reader.fail('malformed private or protected property name');
  return name.slice(second + 1);
}
