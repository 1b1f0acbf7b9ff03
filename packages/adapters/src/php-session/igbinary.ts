import { BuildBudget, type BuildWork } from './build-budget.js';
import { PhpSessionDecodeError, type PhpDecodeLimits, type PhpKey, type PhpObject, type PhpValue } from './php-value.js';
import {
  CLASS_NAME,
  grow,
  INCOMPLETE_CLASS,
  INCOMPLETE_CLASS_NAME,
  limitsFor,
  MAX_REFERENCE_CHAIN,
  narrow,
  SKIPPED,
  unmangle,
} from './unserialize.js';

// igbinary's type codes (format version 2), as php-igbinary writes and reads them.
const NULL = 0x00;
const REF8 = 0x01;
const REF32 = 0x03;
const FALSE = 0x04;
const TRUE = 0x05;
const LONG8P = 0x06;
const LONG32N = 0x0b;
const DOUBLE = 0x0c;
const STRING_EMPTY = 0x0d;
const STRING_ID8 = 0x0e;
const STRING8 = 0x11;
const STRING32 = 0x13;
const ARRAY8 = 0x14;
const ARRAY32 = 0x16;
const OBJECT8 = 0x17;
const OBJECT_ID32 = 0x1c;
const OBJECT_SER8 = 0x1d;
const OBJECT_SER32 = 0x1f;
const LONG64P = 0x20;
const LONG64N = 0x21;
const OBJREF8 = 0x22;
const OBJREF32 = 0x24;
const REF = 0x25;
const ENUM_CASE = 0x27;

const HEADER = [0, 0, 0, 2];
const INT64_MAX = 9223372036854775807n;
/** The smallest element, a one-byte key and a one-byte value: a declared size larger than the bytes left allows is refused before any work. */
const MIN_ELEMENT_BYTES = 2;
/** What a back-reference slot holds: an object (`objref` may point only there) or anything else. */
const KIND_OBJECT = 1;
const ENUM_CASE_NAME = /^[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*$/;
/** A table string's checks, done once per index: a valid class name, a valid enum case name. */
const VALID_CLASS = 1;
const VALID_CASE = 2;
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Reads igbinary (format 2) strictly, on bytes, as PHP's igbinary_unserialize
 * would, without ever making an object. One reader decodes one session. Two
 * tables are numbered across the whole session, as igbinary numbers them:
 * strings (every non-empty string, key and class name, written whole the first
 * time and by index after), and back-reference slots (every array, object and
 * `&`-referenced value; the session's own array is slot 0).
 *
 * Like {@link PhpReader}, a value is either built (`value`) or checked and
 * stepped over (`skip`), which allocates nothing; a skipped value a built one
 * refers to is built then, from where it starts, once (it stays in its slot).
 * Each table string is decoded once, on its first use, and shared by every
 * index naming it: a reference costs O(1), and what is built is counted
 * against a {@link BuildBudget}.
 */
export class IgbinaryReader {
  pos = 4;
  private readonly slots: (PhpValue | undefined)[] = [];
  /** Per slot: where its value starts, the strings table's size there, its depth (| SKIPPED), its kind. */
  private slotStarts = new Int32Array(64);
  private slotStrings = new Int32Array(64);
  private slotDepths = new Uint8Array(64);
  private slotKinds = new Uint8Array(64);
  /** Per value built by {@link materialize}: where it ends, and the slot and string counts after it, to step over it when what holds it is built. */
  private readonly rebuilt = new Map<number, { readonly end: number; readonly slots: number; readonly strings: number }>();
  private slotCount = 0;
  /** Each string's offset and length in the data, by index; its checks done (VALID_*). */
  private stringStarts = new Int32Array(64);
  private stringLengths = new Int32Array(64);
  private stringChecks = new Uint8Array(64);
  private stringCount = 0;
  /** Each string decoded, and as a property name (unmangled), by index: built on first use. */
  private readonly texts: (string | undefined)[] = [];
  private readonly names: (string | undefined)[] = [];
  private values = 0;
  private counting = true;
  /** How many {@link materialize} calls are under way, one inside the other. */
  private chained = 0;
  private readonly limits: Required<PhpDecodeLimits>;
  private readonly length: number;
  private readonly view: DataView;
  private readonly budget: BuildBudget;

  constructor(
    readonly bytes: Uint8Array,
    limits: PhpDecodeLimits = {},
  ) {
    this.limits = limitsFor(bytes, limits);
    this.length = bytes.length;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.budget = new BuildBudget(bytes.length, this.limits.buildFactor);
    if (bytes.length < 5 || HEADER.some((byte, i) => bytes[i] !== byte)) {
      this.pos = 0;
      throw this.fail('igbinary data starts with the header 00 00 00 02 and holds a value');
    }
  }

  get atEnd(): boolean {
    return this.pos >= this.length;
  }

  fail(message: string): PhpSessionDecodeError {
    return new PhpSessionDecodeError(message, this.pos);
  }

  /** What this reader has built so far: a deterministic measure of its work. */
  get built(): BuildWork {
    return { values: this.budget.values, bytes: this.budget.bytes };
  }

  /**
   * The session: one array of variables, slot 0. `build` says which to build; `onElement` is told where each value's bytes are.
   */
  sessionArray(build: (key: string) => boolean, onElement: (key: string, start: number, end: number) => void): Map<string, PhpValue> {
    const type = this.byte();
    if (type < ARRAY8 || type > ARRAY32) throw this.fail('an igbinary session is one array');
    this.count1();
    const vars = new Map<string, PhpValue>();
    const slot = this.takeSlot(0, 0);
    this.slots[slot] = null; // `$_SESSION` itself is not a value a reference may name
    this.pos += 1;
    const size = this.size(type - ARRAY8);
    this.enter(0);
    for (let i = 0; i < size; i += 1) {
      const key = this.name(false);
      const start = this.pos;
      if (build(key)) vars.set(key, this.value(1));
      else this.skip(1);
      onElement(key, start, this.pos);
    }
    return vars;
  }

  /** Builds the value at `pos`. */
  value(depth: number): PhpValue {
    const type = this.byte();
    this.count1();
    this.budget.value(this.pos);
    if (type === REF) return this.referenced(depth);
    if (isRef(type)) return this.reference(type);
    // Only while a skipped value is built: an array or object inside it a reference built already.
    if (this.chained > 0 && type >= ARRAY8 && type <= OBJECT_ID32 && this.slots[this.slotCount] !== undefined) return this.builtAlready();
    if (type >= ARRAY8 && type <= ARRAY32) {
      const array = new Map<PhpKey, PhpValue>();
      this.slots[this.takeSlot(depth, 0)] = array;
      this.pos += 1;
      const size = this.size(type - ARRAY8);
      this.enter(depth);
      for (let i = 0; i < size; i += 1) {
        const key = this.key();
        array.set(key, this.value(depth + 1));
      }
      return array;
    }
    if (type >= OBJECT8 && type <= OBJECT_ID32) return this.object(type, depth);
    return this.scalar(type);
  }

  /** Checks the value at `pos` by the same rules as {@link value} and steps over it, building nothing. */
  skip(depth: number): void {
    const type = this.byte();
    this.count1();
    if (type === REF) {
      this.skipReferenced(depth);
      return;
    }
    if (isRef(type)) {
      this.referenceId(type);
      return;
    }
    if (type >= ARRAY8 && type <= ARRAY32) {
      const slot = this.takeSlot(depth, 0);
      this.skipElements(type, depth);
      this.slotDepths[slot] = depth | SKIPPED;
      return;
    }
    if (type >= OBJECT8 && type <= OBJECT_ID32) {
      const slot = this.takeSlot(depth, KIND_OBJECT);
      this.pos += 1;
      this.className(type - OBJECT8);
      const inner = this.byte();
      if (inner >= ARRAY8 && inner <= ARRAY32) this.skipElements(inner, depth);
      else if (inner >= OBJECT_SER8 && inner <= OBJECT_SER32) this.serialized(inner);
      else if (inner === ENUM_CASE) this.enumCase();
      else throw this.fail(`unknown object inner type ${hex(inner)}`);
      this.slotDepths[slot] = depth | SKIPPED;
      return;
    }
    this.skipScalar(type);
  }

  /**
   * The value of the next slot, built already by {@link materialize} (a value inside one being built is
   * reached only through it): stepped over, with the slots and strings inside it.
   */
  private builtAlready(): PhpValue {
    const slot = this.slotCount;
    const after = this.rebuilt.get(slot)!;
    this.pos = after.end;
    this.slotCount = after.slots;
    this.stringCount = after.strings;
    return this.slots[slot]!;
  }

  /** An array's or object's size and elements, checked and stepped over; `type` is array8..array32. */
  private skipElements(type: number, depth: number): void {
    this.pos += 1;
    const size = this.size(type - ARRAY8);
    this.enter(depth);
    for (let i = 0; i < size; i += 1) {
      this.skipKey();
      this.skip(depth + 1);
    }
  }

  /** `&`: the value after it is shared by reference and takes a slot, unless it is a reference to one already. */
  private referenced(depth: number): PhpValue {
    this.pos += 1;
    const type = this.byte();
    if (type === REF) throw this.fail('a reference of a reference');
    if (isRef(type) || (type >= ARRAY8 && type <= OBJECT_ID32)) return this.value(depth);
    if (this.chained > 0 && this.slots[this.slotCount] !== undefined) return this.builtAlready();
    const slot = this.takeSlot(depth, 0);
    const value = this.scalar(type);
    this.slots[slot] = value;
    return value;
  }

  private skipReferenced(depth: number): void {
    this.pos += 1;
    const type = this.byte();
    if (type === REF) throw this.fail('a reference of a reference');
    if (isRef(type) || (type >= ARRAY8 && type <= OBJECT_ID32)) {
      this.skip(depth);
      return;
    }
    const slot = this.takeSlot(depth, 0);
    this.skipScalar(type);
    this.slotDepths[slot] = depth | SKIPPED;
  }

  private reference(type: number): PhpValue {
    const id = this.referenceId(type);
    let target = this.slots[id];
    if (target === undefined && (this.slotDepths[id]! & SKIPPED) !== 0) target = this.materialize(id);
    if (target === undefined) throw this.fail(`reference ${id} to no value`);
    return target;
  }

  /** A ref or objref and its id: a slot already taken, not the session's own; an objref's must be an object. */
  private referenceId(type: number): number {
    const object = type >= OBJREF8;
    const at = this.pos;
    this.pos += 1;
    const id = this.unsigned(type - (object ? OBJREF8 : REF8));
    if (id < 1 || id >= this.slotCount) {
      this.pos = at;
      throw this.fail(`reference to no value (${id})`);
    }
    if (object && this.slotKinds[id] !== KIND_OBJECT) {
      this.pos = at;
      throw this.fail(`object reference ${id} to a value that is not an object`);
    }
    return id;
  }

  private materialize(slot: number): PhpValue {
    // Each stepped-over value built from inside another nests the reading once more: bounded, so that
    // no chain of references can exhaust the stack (PHP builds every value as it goes; this reader does not).
    if (this.chained >= MAX_REFERENCE_CHAIN)
      throw this.fail(`references to stepped-over values chained more than ${MAX_REFERENCE_CHAIN} deep`);
    this.chained += 1;
    const { pos, slotCount, stringCount, counting } = this;
    this.pos = this.slotStarts[slot]!;
    this.slotCount = slot;
    this.stringCount = this.slotStrings[slot]!;
    this.counting = false;
    try {
      // A slot starts at its array or object, or at the scalar after its `&`: read again from there,
      // and kept (an array or object keeps itself; a scalar is kept here), so the next reference shares it.
      const value = this.value(this.slotDepths[slot]! & ~SKIPPED);
      this.slots[slot] = value;
      // A scalar after `&` took its slot before the value: the count after it is past that slot.
      this.rebuilt.set(slot, { end: this.pos, slots: Math.max(this.slotCount, slot + 1), strings: this.stringCount });
      return value;
    } finally {
      this.pos = pos;
      this.slotCount = slotCount;
      this.stringCount = stringCount;
      this.counting = counting;
      this.chained -= 1;
    }
  }

  private object(type: number, depth: number): PhpValue {
    const slot = this.takeSlot(depth, KIND_OBJECT);
    this.pos += 1;
    const className = this.className(type - OBJECT8);
    const inner = this.byte();
    if (inner >= ARRAY8 && inner <= ARRAY32) {
      const properties = new Map<string, PhpValue>();
      const object: PhpObject = Object.freeze({ kind: 'object' as const, className, properties });
      this.slots[slot] = object;
      this.pos += 1;
      const size = this.size(inner - ARRAY8);
      this.enter(depth);
      for (let i = 0; i < size; i += 1) properties.set(this.name(true), this.value(depth + 1));
      return object;
    }
    if (inner >= OBJECT_SER8 && inner <= OBJECT_SER32) {
      // A Serializable's own bytes: no code of the class runs; stepped over by their length, as an incomplete object.
      this.serialized(inner);
      return (this.slots[slot] = Object.freeze({
        kind: 'object' as const,
        className: INCOMPLETE_CLASS,
        properties: new Map([[INCOMPLETE_CLASS_NAME, className]]),
      }));
    }
    if (inner === ENUM_CASE) return (this.slots[slot] = Object.freeze({ kind: 'enum' as const, className, caseName: this.enumCase() }));
    throw this.fail(`unknown object inner type ${hex(inner)}`);
  }

  private serialized(type: number): void {
    this.pos += 1;
    const length = this.unsigned(type - OBJECT_SER8);
    if (this.pos + length > this.length) throw this.fail(`a ${length}-byte serialized object runs past the end`);
    this.pos += length;
  }

  private enumCase(): string {
    this.pos += 1;
    const type = this.byte();
    if (!isString(type)) throw this.fail(`unknown string type ${hex(type)}`);
    this.pos += 1;
    if (type === STRING_EMPTY) throw this.fail('invalid enum case name');
    return this.checked(this.stringIndex(type), VALID_CASE, ENUM_CASE_NAME, 'invalid enum case name');
  }

  private scalar(type: number): PhpValue {
    switch (type) {
      case NULL:
        this.pos += 1;
        return null;
      case FALSE:
      case TRUE:
        this.pos += 1;
        return type === TRUE;
      case DOUBLE:
        this.need(9);
        this.pos += 9;
        return this.view.getFloat64(this.pos - 8);
      default:
        if (isLong(type)) return this.long(type);
        if (isString(type)) return this.string(type);
        throw this.fail(`unknown type ${hex(type)}`);
    }
  }

  private skipScalar(type: number): void {
    if (type === NULL || type === FALSE || type === TRUE) this.pos += 1;
    else if (type === DOUBLE) {
      this.need(9);
      this.pos += 9;
    } else if (isLong(type)) this.long(type);
    else if (isString(type)) this.skipString(type);
    else throw this.fail(`unknown type ${hex(type)}`);
  }

  /** An array key: a long or a string, taking no slot; a numeric string stays a string, as igbinary leaves it. */
  private key(): PhpKey {
    const type = this.byte();
    if (isLong(type)) return this.long(type);
    if (isString(type)) return this.string(type);
    throw this.fail(`unknown key type ${hex(type)}`);
  }

  /** A key as a name: a session variable's, or (`property`) a property's, unmangled; a table string's is made once per index. */
  private name(property: boolean): string {
    const type = this.byte();
    if (isLong(type)) {
      const name = String(this.long(type));
      this.budget.text(name.length, this.pos);
      return name;
    }
    if (!isString(type)) throw this.fail(`unknown key type ${hex(type)}`);
    this.pos += 1;
    if (type === STRING_EMPTY) return '';
    const index = this.stringIndex(type);
    if (!property) return this.text(index);
    let name = this.names[index];
    if (name === undefined) {
      const text = this.text(index);
      name = unmangle(text, this);
      if (name !== text) this.budget.text(name.length, this.pos);
      this.names[index] = name;
    }
    return name;
  }

  private skipKey(): void {
    const type = this.byte();
    if (isLong(type)) this.long(type);
    else if (isString(type)) this.skipString(type);
    else throw this.fail(`unknown key type ${hex(type)}`);
  }

  private long(type: number): number | bigint {
    this.pos += 1;
    if (type >= LONG64P) {
      this.need(8);
      const magnitude = this.view.getBigUint64(this.pos);
      this.pos += 8;
      if (magnitude > INT64_MAX + (type === LONG64N ? 1n : 0n)) throw this.fail('a 64-bit integer out of range');
      return narrow(type === LONG64N ? -magnitude : magnitude);
    }
    const magnitude = this.unsigned((type - LONG8P) >> 1);
    // 0 - 0 is +0: a negative zero is still the int 0.
    return (type - LONG8P) % 2 === 1 ? 0 - magnitude : magnitude;
  }

  /** A string value or key of any string type; a non-empty one written whole joins the strings table. */
  private string(type: number): string {
    this.pos += 1;
    if (type === STRING_EMPTY) return '';
    return this.text(this.stringIndex(type));
  }

  /** After a non-empty string's type code: its index, the string read whole (and added) or named by index. */
  private stringIndex(type: number): number {
    return type >= STRING8 ? this.stringAt(type - STRING8, true) : this.stringAt(type - STRING_ID8, false);
  }

  private skipString(type: number): void {
    this.pos += 1;
    if (type !== STRING_EMPTY) this.stringAt(type >= STRING8 ? type - STRING8 : type - STRING_ID8, type >= STRING8);
  }

  /** After object8..object_id32 (`code` its distance from object8): a whole name or an index. */
  private className(code: number): string {
    return this.checked(this.stringAt(code % 3, code < 3), VALID_CLASS, CLASS_NAME, 'invalid class name');
  }

  /** The string at `index`, checked against `pattern` on its first use as such a name. */
  private checked(index: number, check: number, pattern: RegExp, problem: string): string {
    const text = this.text(index);
    if ((this.stringChecks[index]! & check) === 0) {
      if (!pattern.test(text)) throw this.fail(problem);
      this.stringChecks[index] = this.stringChecks[index]! | check;
    }
    return text;
  }

  /** The string at `index`, decoded on its first use and shared after (a reread of the data adds the same strings at the same indexes). */
  private text(index: number): string {
    let text = this.texts[index];
    if (text === undefined) {
      const start = this.stringStarts[index]!;
      const length = this.stringLengths[index]!;
      this.budget.text(length, this.pos);
      text = utf8.decode(this.bytes.subarray(start, start + length));
      this.texts[index] = text;
    }
    return text;
  }

  /** The string's index in the table, reading a whole one (and adding it) or an index; `pos` is after the type code; sizeCode 0/1/2 for 8/16/32 bits. */
  private stringAt(sizeCode: number, whole: boolean): number {
    if (!whole) {
      const at = this.pos;
      const index = this.unsigned(sizeCode);
      if (index >= this.stringCount) {
        this.pos = at;
        throw this.fail(`string index ${index} is out of bounds`);
      }
      return index;
    }
    const length = this.unsigned(sizeCode);
    if (this.pos + length > this.length) throw this.fail(`a ${length}-byte string runs past the end`);
    const index = this.stringCount++;
    if (index === this.stringStarts.length) {
      this.stringStarts = grow(this.stringStarts);
      this.stringLengths = grow(this.stringLengths);
      this.stringChecks = grow(this.stringChecks);
    }
    this.stringStarts[index] = this.pos;
    this.stringLengths[index] = length;
    this.pos += length;
    return index;
  }

  /** An array's size after its type code (sizeCode 0/1/2), refused if more elements than bytes left could hold. */
  private size(sizeCode: number): number {
    const size = this.unsigned(sizeCode);
    if (size * MIN_ELEMENT_BYTES > this.length - this.pos) throw this.fail(`${size} elements cannot fit in the data left`);
    return size;
  }

  /** A big-endian unsigned number of 1, 2 or 4 bytes (sizeCode 0/1/2). */
  private unsigned(sizeCode: number): number {
    const bytes = 1 << sizeCode;
    this.need(bytes);
    const at = this.pos;
    this.pos += bytes;
    return bytes === 1 ? this.bytes[at]! : bytes === 2 ? this.view.getUint16(at) : this.view.getUint32(at);
  }

  private takeSlot(depth: number, kind: number): number {
    const slot = this.slotCount++;
    if (slot === this.slotStarts.length) {
      this.slotStarts = grow(this.slotStarts);
      this.slotStrings = grow(this.slotStrings);
      this.slotDepths = grow(this.slotDepths);
      this.slotKinds = grow(this.slotKinds);
    }
    this.slotStarts[slot] = this.pos;
    this.slotStrings[slot] = this.stringCount;
    this.slotDepths[slot] = depth;
    this.slotKinds[slot] = kind;
    return slot;
  }

  private count1(): void {
    if (this.counting && ++this.values > this.limits.maxValues) throw this.fail(`more than ${this.limits.maxValues} values`);
  }

  private enter(depth: number): void {
    if (depth + 1 > this.limits.maxDepth) throw this.fail(`nesting deeper than ${this.limits.maxDepth}`);
  }

  private byte(): number {
    const type = this.bytes[this.pos];
    if (type === undefined) throw this.fail('unexpected end of data');
    return type;
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.length) throw this.fail('unexpected end of data');
  }
}

/** An int as igbinary writes it: the smallest of its 8/16/32/64-bit codes, sign in the code, big-endian magnitude. */
export function igbinaryLong(value: number): Uint8Array {
  const magnitude = Math.abs(value);
  const negative = value < 0 ? 1 : 0;
  if (magnitude <= 0xff) return Uint8Array.of(LONG8P + negative, magnitude);
  if (magnitude <= 0xffff) return Uint8Array.of(LONG8P + 2 + negative, magnitude >> 8, magnitude & 0xff);
  const out = new Uint8Array(magnitude <= 0xffffffff ? 5 : 9);
  const view = new DataView(out.buffer);
  if (out.length === 5) {
    out[0] = LONG8P + 4 + negative;
    view.setUint32(1, magnitude);
  } else {
    out[0] = LONG64P + negative;
    view.setBigUint64(1, BigInt(magnitude));
  }
  return out;
}

/** Whether the value at `start` is a plain int or float (no `&`): one that can be replaced without renumbering anything. */
export function isIgbinaryNumber(bytes: Uint8Array, start: number): boolean {
  const type = bytes[start] ?? -1;
  return isLong(type) || type === DOUBLE;
}

function isLong(type: number): boolean {
  return (type >= LONG8P && type <= LONG32N) || type === LONG64P || type === LONG64N;
}

function isString(type: number): boolean {
  return type >= STRING_EMPTY && type <= STRING32;
}

function isRef(type: number): boolean {
  return (type >= REF8 && type <= REF32) || (type >= OBJREF8 && type <= OBJREF32);
}

function hex(type: number): string {
  return `0x${type.toString(16).padStart(2, '0')}`;
}
