/** PHP's serialize() for the JSON-like values the suite stores (strings by byte length). */
export function phpSerialize(value: unknown): string {
  if (value === null || value === undefined) return 'N;';
  if (typeof value === 'boolean') return `b:${value ? 1 : 0};`;
  if (typeof value === 'number') return Number.isInteger(value) ? `i:${value};` : `d:${value};`;
  if (typeof value === 'string') return `s:${Buffer.byteLength(value)}:"${value}";`;
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
  const body = entries.map(([key, item]) => (typeof key === 'number' ? `i:${key};` : phpSerialize(key)) + phpSerialize(item)).join('');
  return `a:${entries.length}:{${body}}`;
}
