const utf8 = new TextDecoder('utf-8');

/**
 * `a=1&b&c=%ZZ` → name/value pairs, in order: `+` is a space, `%XX` escapes
 * are bytes read as UTF-8 (bad sequences become U+FFFD), an invalid escape
 * stays as written, a name without `=` has the empty value.
 *
 * Not URLSearchParams: Node 20's turns a valid character after an invalid
 * escape into U+FFFD (`%00%ZZñ` → `\0%ZZ\uFFFD`), found by the property tests.
 */
export function urlencodedPairs(body: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const segment of body.split('&')) {
    if (segment === '') continue;
    const eq = segment.indexOf('=');
    pairs.push(eq < 0 ? [decodeComponent(segment), ''] : [decodeComponent(segment.slice(0, eq)), decodeComponent(segment.slice(eq + 1))]);
  }
  return pairs;
}

function decodeComponent(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  const bytes = Buffer.from(spaced, 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i] ?? 0;
    const high = hexValue(bytes[i + 1]);
    const low = hexValue(bytes[i + 2]);
    if (byte === 0x25 && high >= 0 && low >= 0) {
      out[length++] = high * 16 + low;
      i += 2;
    } else {
      out[length++] = byte;
    }
  }
  return utf8.decode(out.subarray(0, length));
}

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
