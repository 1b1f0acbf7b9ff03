// A reference model of the contract's $_POST rules, written from the contract, independently of the service.

export const ARRAY = Symbol('array');
export type PostValue = string | typeof ARRAY;

const utf8 = new TextDecoder('utf-8');

/** `application/x-www-form-urlencoded` bytes → name/value pairs, as the contract reads them. */
export function modelUrlencoded(body: Buffer): Array<[string, string]> {
  const text = utf8.decode(body);
  const pairs: Array<[string, string]> = [];
  for (const segment of text.split('&')) {
    if (segment === '') continue;
    const eq = segment.indexOf('=');
    pairs.push(eq < 0 ? [decode(segment), ''] : [decode(segment.slice(0, eq)), decode(segment.slice(eq + 1))]);
  }
  return pairs;
}

/** `+` is a space, `%XX` a byte, anything else its UTF-8 bytes; the bytes read as UTF-8 with U+FFFD for bad ones. */
function decode(component: string): string {
  const bytes: number[] = [];
  const chars = [...component];
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i] ?? '';
    if (c === '+') bytes.push(0x20);
    else if (c === '%' && /^[0-9a-fA-F]{2}$/.test((chars[i + 1] ?? '') + (chars[i + 2] ?? ''))) {
      bytes.push(Number.parseInt((chars[i + 1] ?? '') + (chars[i + 2] ?? ''), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return utf8.decode(Uint8Array.from(bytes));
}

/** PHP's variable-name rules, walked character by character as php_register_variable_ex does. */
export function modelName(raw: string): { name: string; array: boolean } | undefined {
  let i = 0;
  while (raw[i] === ' ') i += 1;
  let base = '';
  for (; i < raw.length; i += 1) {
    const c = raw[i];
    if (c === '[') break;
    base += c === ' ' || c === '.' ? '_' : c;
  }
  if (base === '') return undefined;
  if (i === raw.length) return { name: base, array: false };
  if (raw.indexOf(']', i + 1) >= 0) return { name: base, array: true };
  let rest = '';
  for (const c of raw.slice(i + 1)) rest += c === ' ' || c === '.' || c === '[' ? '_' : c;
  return { name: `${base}_${rest}`, array: false };
}

export function modelPost(pairs: Array<[string, string]>): Map<string, PostValue> {
  const post = new Map<string, PostValue>();
  for (const [raw, value] of pairs) {
    const key = modelName(raw);
    if (key) post.set(key.name, key.array ? ARRAY : value);
  }
  return post;
}

/** What operation A sends upstream for this $_POST, or 'invalid' when a used parameter is an array. */
export function modelPayloadA(post: Map<string, PostValue>): Record<string, string | number> | 'invalid' {
  const used = ['id', 'field', 'value', 'idEmpresa', 'idUsuario'];
  if (used.some((name) => post.get(name) === ARRAY)) return 'invalid';
  const get = (name: string) => post.get(name) as string | undefined;
  const field = get('field') ?? '';
  return field === 'benef_emp'
    ? { id: get('id') ?? 0, field, idEmpresa: get('idEmpresa') ?? 0, idUsuario: get('idUsuario') ?? 0 }
    : { id: get('id') ?? 0, field, value: get('value') ?? '' };
}
