/** A parameter PHP would have turned into an array (`id[]=1`, `value[a]=x`). */
export const STRUCTURED = Object.freeze({ structured: true as const });
export type FormValue = string | typeof STRUCTURED;

/** The request's parameters as PHP's `$_POST` holds them: one value per name, the last one sent. */
export type FormParams = ReadonlyMap<string, FormValue>;

/**
 * Builds `$_POST` from the body's name/value pairs in the order they were sent.
 * A Map, so no name (`__proto__`, `constructor`) can reach an object prototype.
 */
export function phpFormParams(pairs: Iterable<readonly [string, string]>): FormParams {
  const params = new Map<string, FormValue>();
  for (const [rawName, value] of pairs) {
    const key = phpVariableName(rawName);
    if (key === undefined) continue;
    params.set(key.name, key.structured ? STRUCTURED : value);
  }
  return params;
}

/**
 * PHP's register-variable rules for a name: leading spaces dropped; spaces and
 * dots before the first `[` become `_`; `base[...]` is an array; a `[` with no
 * `]` after it is not an array, and it and any later space, dot or `[` become `_`.
 */
function phpVariableName(raw: string): { name: string; structured: boolean } | undefined {
  const name = raw.replace(/^ +/, '');
  const open = name.indexOf('[');
  if (open === 0 || name === '') return undefined;
  if (open < 0) return { name: name.replace(/[ .]/g, '_'), structured: false };
  const base = name.slice(0, open).replace(/[ .]/g, '_');
  if (name.indexOf(']', open) > 0) return { name: base, structured: true };
  return { name: `${base}_${name.slice(open + 1).replace(/[ .[]/g, '_')}`, structured: false };
}

export type ParamRead<T> = { ok: true; values: T } | { ok: false };

/** Reads the named parameters as strings, or fails when any of them was sent in array form. */
export function readStrings<N extends string>(
  params: FormParams,
  names: readonly N[],
): ParamRead<{ [K in N]: string | undefined }> {
  const values = {} as { [K in N]: string | undefined };
  for (const name of names) {
    const value = params.get(name);
    if (typeof value === 'object') return { ok: false };
    values[name] = value;
  }
  return { ok: true, values };
}
