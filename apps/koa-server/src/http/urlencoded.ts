import { isUtf8 } from 'node:buffer';
import { REJECTIONS } from './rejection.js';

const utf8 = new TextDecoder('utf-8');
const AMP = 0x26;
const EQ = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

/**
 * `a=1&b&c=%ZZ` → name/value pairs, in order: `+` is a space, `%XX` escapes
 * are bytes read as UTF-8 (bad sequences become U+FFFD), an invalid escape
 * stays as written, a name without `=` has the empty value. More than
 * `maxPairs` pairs is a 413, found without reading further.
 *
 * One pass over the bytes, each byte touched once: a body of a million `+` or
 * `&` costs what a body of a million letters does. (`replaceAll('+', ' ')`
 * and `split('&')` cost ~100 ns per match, a CPU flood for any client.)
 * Not URLSearchParams: Node 20's turns a valid character after an invalid
 * escape into U+FFFD (`%00%ZZñ` → `\0%ZZ\uFFFD`), found by the property tests.
 */
export function urlencodedPairs(body: Buffer, maxPairs: number): Array<[string, string]> {
  // The body is read as UTF-8 first (invalid bytes → U+FFFD), then escapes are decoded in those well-formed bytes.
  const bytes = isUtf8(body) ? body : Buffer.from(utf8.decode(body), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  const pairs: Array<[string, string]> = [];
  // Plain locals only in the loop (no closure over them): it runs once per byte.
  let length = 0;
  let name: string | undefined;
  let segmentStart = 0;
  for (let i = 0; i <= bytes.length; i += 1) {
    const byte = i < bytes.length ? bytes[i]! : AMP;
    if (byte === AMP) {
      if (i > segmentStart) {
        const text = utf8.decode(out.subarray(0, length));
        pairs.push(name === undefined ? [text, ''] : [name, text]);
        if (pairs.length > maxPairs) throw REJECTIONS.tooLarge();
      }
      name = undefined;
      length = 0;
      segmentStart = i + 1;
    } else if (byte === EQ && name === undefined) {
      name = utf8.decode(out.subarray(0, length));
      length = 0;
    } else if (byte === PLUS) {
      out[length++] = SPACE;
    } else if (byte === PERCENT && i + 2 < bytes.length && isHex(bytes[i + 1]!) && isHex(bytes[i + 2]!)) {
      out[length++] = (hexValue(bytes[i + 1]!) << 4) | hexValue(bytes[i + 2]!);
      i += 2;
    } else {
      out[length++] = byte;
    }
  }
  return pairs;
}

function isHex(byte: number): boolean {
  return hexValue(byte) >= 0;
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
