/** A cut value ends with this, saying how long the value was (UTF-8 bytes): the contract's marker. */
export const cutMarker = (bytes: number) => `…[cut: ${bytes} bytes]`;

/** A marker already at the end of a value: a value cut again keeps the length it had first. */
const EARLIER_MARKER = /…\[cut: (\d+) bytes\]$/;

/** How much of a value a column keeps: characters (code points), bytes in its encoding, or both. */
export interface TextBound {
  readonly maxCharacters?: number | undefined;
  readonly maxBytes?: number | undefined;
  /** Bytes one code point takes in the column's encoding. */
  readonly bytesOf?: ((codePoint: number) => number) | undefined;
}

const utf8Bytes = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);

/**
 * `value` itself when it fits `bound`, else its longest prefix (never half a character) followed by
 * the marker, together within the bound. A bound too small for the marker gets the bare prefix.
 */
export function cutText(value: string, bound: TextBound): string {
  const bytesOf = bound.bytesOf ?? utf8Bytes;
  const maxCharacters = bound.maxCharacters ?? Infinity;
  const maxBytes = bound.maxBytes ?? Infinity;
  if (fits(value, maxCharacters, maxBytes, bytesOf)) return value;
  const earlier = EARLIER_MARKER.exec(value);
  const marker = cutMarker(earlier ? Number(earlier[1]) : Buffer.byteLength(value));
  const markerCharacters = [...marker].length;
  const markerBytes = measure(marker, bytesOf);
  const withMarker = markerCharacters < maxCharacters && markerBytes < maxBytes;
  const keep = prefixLength(
    value,
    withMarker ? maxCharacters - markerCharacters : maxCharacters,
    withMarker ? maxBytes - markerBytes : maxBytes,
    bytesOf,
  );
  return `${value.slice(0, keep)}${withMarker ? marker : ''}`;
}

function fits(value: string, maxCharacters: number, maxBytes: number, bytesOf: (codePoint: number) => number): boolean {
  // UTF-16 units bound code points from above, and no encoding here takes more than 4 bytes a unit.
  if (value.length <= maxCharacters && value.length * 4 <= maxBytes) return true;
  return prefixLength(value, maxCharacters, maxBytes, bytesOf) === value.length;
}

/** The UTF-16 length of the longest prefix of whole code points within both bounds. */
function prefixLength(value: string, maxCharacters: number, maxBytes: number, bytesOf: (codePoint: number) => number): number {
  let characters = 0;
  let bytes = 0;
  let i = 0;
  while (i < value.length) {
    const codePoint = value.codePointAt(i) ?? 0;
    const units = codePoint > 0xffff ? 2 : 1;
    bytes += bytesOf(codePoint);
    characters += 1;
    if (characters > maxCharacters || bytes > maxBytes) break;
    i += units;
  }
  return i;
}

function measure(text: string, bytesOf: (codePoint: number) => number): number {
  let bytes = 0;
  for (const character of text) bytes += bytesOf(character.codePointAt(0) ?? 0);
  return bytes;
}
