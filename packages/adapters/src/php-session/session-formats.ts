import type { BuildWork } from './build-budget.js';
import { PhpSessionDecodeError, type PhpDecodeLimits, type PhpValue } from './php-value.js';
import type { PhpSessionFormat } from './options.js';
import { igbinaryLong, IgbinaryReader, isIgbinaryNumber } from './igbinary.js';
import { PhpReader } from './unserialize.js';

export interface DecodedPhpSession {
  /** `$_SESSION` as PHP would rebuild it. */
  readonly vars: Map<string, PhpValue>;
  /** Where each top-level value's bytes are, so one value can be rewritten and every other byte kept. */
  readonly spans: Map<string, { readonly start: number; readonly end: number }>;
  /** What the reader built: within `buildFactor` × the data's length, or the data was refused. */
  readonly built: BuildWork;
}

const PIPE = 0x7c;
const PS_BIN_MAX = 127;
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Decodes session data as PHP's session_decode does for each handler, but
 * strictly: anything PHP would stop at silently (a key with no value, a
 * truncated php_binary key, trailing bytes) is an error here. With `only`,
 * just those top-level keys are built: every other value is checked by the same
 * rules and stepped over, building nothing. What is built (repeated strings and
 * referenced values once each) stays within BUILD_FACTOR × the data's length, or
 * the data is refused as undecodable.
 */
export function decodePhpSession(
  bytes: Uint8Array,
  format: PhpSessionFormat,
  limits?: PhpDecodeLimits,
  only?: ReadonlySet<string>,
): DecodedPhpSession {
  const spans = new Map<string, { start: number; end: number }>();
  const wanted = (key: string) => only === undefined || only.has(key);
  if (format === 'igbinary') {
    // The igbinary serialization of `$_SESSION`: one array after the header.
    const reader = new IgbinaryReader(bytes, limits);
    const vars = reader.sessionArray(wanted, (key, start, end) => spans.set(key, { start, end }));
    if (!reader.atEnd) throw reader.fail('trailing bytes after the session');
    return { vars, spans, built: reader.built };
  }
  const reader = new PhpReader(bytes, limits);
  const vars = new Map<string, PhpValue>();
  const read = (key: string) => {
    const start = reader.pos;
    if (wanted(key)) vars.set(key, reader.value(1));
    else reader.skip(1);
    spans.set(key, { start, end: reader.pos });
  };
  if (format === 'php_serialize') {
    // One array; it is slot 1 and its elements follow, as PHP numbers them.
    if (bytes[0] !== 0x61) throw new PhpSessionDecodeError('php_serialize data is one array', 0);
    const array = reader.topLevelArray(
      (key, start, end) => spans.set(String(key), { start, end }),
      (key) => wanted(String(key)),
    );
    for (const [key, element] of array) vars.set(String(key), element);
  } else if (format === 'php') {
    // `key|value` repeated: the key runs to the first '|' (PHP refuses to write keys containing one);
    // the value is then read by its own grammar, so a '|' inside a value is just data.
    while (!reader.atEnd) {
      const bar = bytes.indexOf(PIPE, reader.pos);
      if (bar < 0) throw reader.fail('a key with no value');
      const key = utf8.decode(bytes.subarray(reader.pos, bar));
      reader.pos = bar + 1;
      read(key);
    }
  } else {
    // A length byte (its high bit, PHP 5's "undefined" marker, is masked off as PHP does), the key, the value.
    while (!reader.atEnd) {
      const length = (bytes[reader.pos] ?? 0) & PS_BIN_MAX;
      if (reader.pos + 1 + length >= bytes.length) throw reader.fail('a key with no value');
      const key = utf8.decode(bytes.subarray(reader.pos + 1, reader.pos + 1 + length));
      reader.pos += 1 + length;
      read(key);
    }
  }
  if (!reader.atEnd) throw reader.fail('trailing bytes after the session');
  return { vars, spans, built: reader.built };
}

/** Whether the top-level value at `start` is a plain int or float: one that can be replaced by another without renumbering any reference. */
export function isPlainNumber(bytes: Uint8Array, start: number, format: PhpSessionFormat): boolean {
  if (format === 'igbinary') return isIgbinaryNumber(bytes, start);
  return bytes[start] === 0x69 || bytes[start] === 0x64;
}

/** An int value as PHP's serializer for `format` writes it. */
export function encodeInt(value: number, format: PhpSessionFormat): Uint8Array {
  return format === 'igbinary' ? igbinaryLong(value) : Buffer.from(`i:${value};`);
}
