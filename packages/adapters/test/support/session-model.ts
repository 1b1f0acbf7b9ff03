import type { PhpSessionFormat } from '../../src/php-session.js';

/**
 * A session's values as PHP holds them, sharing included: `ref` is a PHP reference to a value
 * written before it (`R:` / igbinary `&` and ref), or the same object again (`r:` / objref). The
 * encoders write it as PHP's serializers do, slots and igbinary's string table numbered as PHP
 * numbers them, so a test can make sessions of any repetition without PHP.
 */
export type Model =
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'array'; readonly items: readonly (readonly [string | number, Model])[] }
  | { readonly kind: 'object'; readonly properties: readonly (readonly [string, Model])[] }
  | { readonly kind: 'ref'; readonly to: Model };

export const int = (value: number): Model => ({ kind: 'int', value });
export const str = (value: string): Model => ({ kind: 'string', value });
export const list = (values: readonly Model[]): Model => ({ kind: 'array', items: values.map((value, i) => [i, value] as const) });
export const ref = (to: Model): Model => ({ kind: 'ref', to });

/** What a ref finally names (a reference to a reference is one to the same value). */
export const resolve = (model: Model): Model => (model.kind === 'ref' ? resolve(model.to) : model);

/** The data of a session holding `vars`, as `format`'s serializer writes it. */
export function encodeSession(vars: readonly (readonly [string, Model])[], format: PhpSessionFormat): Buffer {
  return format === 'igbinary' ? igbinarySession(vars) : Buffer.from(serializeSession(vars, format), 'latin1');
}

/** The plain data toPlain makes of what the decoder reads (shared values stay shared). */
export function plainOf(model: Model, seen = new Map<Model, unknown>()): unknown {
  const target = resolve(model);
  if (target.kind === 'int' || target.kind === 'string') return target.value;
  const known = seen.get(target);
  if (known !== undefined) return known;
  const plain = Object.create(null) as Record<string, unknown>;
  seen.set(target, plain);
  const entries = target.kind === 'array' ? target.items : target.kind === 'object' ? target.properties : [];
  for (const [key, value] of entries) plain[String(key)] = plainOf(value, seen);
  return plain;
}

/** php, php_binary, php_serialize: every value takes a slot but `R:` (1-based, across the session). Bytes as latin1 text. */
function serializeSession(vars: readonly (readonly [string, Model])[], format: Exclude<PhpSessionFormat, 'igbinary'>): string {
  const slots = new Map<Model, number>();
  let slot = format === 'php_serialize' ? 1 : 0;
  const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
  const text = (value: string) => `s:${Buffer.byteLength(value)}:"${bytes(value)}";`;
  const key = (name: string | number) => (typeof name === 'number' ? `i:${name};` : text(name));
  const value = (model: Model): string => {
    if (model.kind === 'ref') {
      const target = resolve(model);
      if (target.kind !== 'object') return `R:${slots.get(target)!};`;
      slot += 1; // the same object again: `r:` takes a slot of its own
      return `r:${slots.get(target)!};`;
    }
    slots.set(model, (slot += 1));
    if (model.kind === 'int') return `i:${model.value};`;
    if (model.kind === 'string') return text(model.value);
    if (model.kind === 'array') return `a:${model.items.length}:{${model.items.map(([k, v]) => key(k) + value(v)).join('')}}`;
    return `O:8:"stdClass":${model.properties.length}:{${model.properties.map(([k, v]) => key(k) + value(v)).join('')}}`;
  };
  if (format === 'php_serialize') return `a:${vars.length}:{${vars.map(([name, model]) => key(name) + value(model)).join('')}}`;
  return vars
    .map(
      ([name, model]) => (format === 'php' ? `${bytes(name)}|` : String.fromCharCode(Buffer.byteLength(name)) + bytes(name)) + value(model),
    )
    .join('');
}

/** igbinary: slots for arrays, objects and `&` values (the session's array is slot 0), and a table of every non-empty string. */
function igbinarySession(vars: readonly (readonly [string, Model])[]): Buffer {
  const referenced = new Set<Model>();
  const mark = (model: Model): void => {
    if (model.kind === 'ref') referenced.add(resolve(model));
    else if (model.kind === 'array') model.items.forEach(([, v]) => mark(v));
    else if (model.kind === 'object') model.properties.forEach(([, v]) => mark(v));
  };
  vars.forEach(([, model]) => mark(model));
  const out: number[] = [0, 0, 0, 2];
  const strings = new Map<string, number>();
  const slots = new Map<Model, number>();
  let slot = 0;
  const sized = (code8: number, n: number) => {
    if (n <= 0xff) out.push(code8, n);
    else if (n <= 0xffff) out.push(code8 + 1, n >> 8, n & 0xff);
    else out.push(code8 + 2, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  };
  const string = (value: string) => {
    if (value === '') return void out.push(0x0d);
    const index = strings.get(value);
    if (index !== undefined) return sized(0x0e, index);
    strings.set(value, strings.size);
    const utf8 = Buffer.from(value, 'utf8');
    sized(0x11, utf8.length);
    for (const byte of utf8) out.push(byte);
  };
  const igLong = (n: number) => {
    const magnitude = Math.abs(n);
    const negative = n < 0 ? 1 : 0;
    if (magnitude <= 0xff) out.push(0x06 + negative, magnitude);
    else if (magnitude <= 0xffff) out.push(0x08 + negative, magnitude >> 8, magnitude & 0xff);
    else out.push(0x0a + negative, (magnitude >>> 24) & 0xff, (magnitude >> 16) & 0xff, (magnitude >> 8) & 0xff, magnitude & 0xff);
  };
  const key = (name: string | number) => (typeof name === 'number' ? igLong(name) : string(name));
  const value = (model: Model): void => {
    if (model.kind === 'ref') {
      const target = resolve(model);
      return sized(target.kind === 'object' ? 0x22 : 0x01, slots.get(target)!);
    }
    if (referenced.has(model) && model.kind !== 'object') out.push(0x25);
    if (model.kind === 'int' || model.kind === 'string') {
      if (referenced.has(model)) slots.set(model, (slot += 1));
      return model.kind === 'int' ? igLong(model.value) : string(model.value);
    }
    slots.set(model, (slot += 1));
    if (model.kind === 'object') {
      const known = strings.get('stdClass');
      if (known === undefined) {
        strings.set('stdClass', strings.size);
        out.push(0x17, 8, ...Buffer.from('stdClass', 'latin1'));
      } else sized(0x1a, known);
    }
    const entries = model.kind === 'array' ? model.items : model.properties;
    sized(0x14, entries.length);
    for (const [k, v] of entries) {
      key(k);
      value(v);
    }
  };
  sized(0x14, vars.length);
  for (const [name, model] of vars) {
    string(name);
    value(model);
  }
  return Buffer.from(out);
}
