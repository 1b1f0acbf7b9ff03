import type { PhpValue } from './php-value.js';

/**
 * A decoded value as plain JavaScript data for the core: arrays and objects
 * become null-prototype objects (so `__proto__` or `constructor` keys are just
 * keys), unsafe ints their exact decimal text, enums `Class::Case`. Shared and
 * cyclic values (PHP references) stay shared.
 */
export function toPlain(value: PhpValue, seen = new Map<object, unknown>()): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (!(value instanceof Map) && value.kind === 'enum') return `${value.className}::${value.caseName}`;
  const plain = Object.create(null) as Record<string, unknown>;
  seen.set(value, plain);
  const entries = value instanceof Map ? value : value.properties;
  for (const [key, element] of entries) {
    Object.defineProperty(plain, String(key), { value: toPlain(element, seen), enumerable: true, writable: true, configurable: true });
  }
  return plain;
}
