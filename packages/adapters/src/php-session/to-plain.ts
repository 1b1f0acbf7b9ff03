import type { PhpValue } from './php-value.js';

/**
 * A decoded value as plain JavaScript data for the core: arrays and objects
 * become null-prototype objects (so `__proto__` or `constructor` keys are just
 * keys), unsafe ints their exact decimal text, enums `Class::Case`. Shared and
 * cyclic values (PHP references) stay shared, and each is converted once: the
 * result is as large as what the reader built, however often a value is
 * referenced (copying shared values would grow exponentially with their nesting).
 */
export function toPlain(value: PhpValue, seen = new Map<unknown, unknown>()): unknown {
  if (typeof value !== 'object' && typeof value !== 'bigint') return value;
  if (value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (typeof value === 'bigint') return remember(seen, value, value.toString());
  if (!(value instanceof Map) && value.kind === 'enum') return remember(seen, value, `${value.className}::${value.caseName}`);
  const plain = remember(seen, value, Object.create(null) as Record<string, unknown>);
  const entries = value instanceof Map ? value : value.properties;
  for (const [key, element] of entries) {
    Object.defineProperty(plain, String(key), { value: toPlain(element, seen), enumerable: true, writable: true, configurable: true });
  }
  return plain;
}

function remember<T>(seen: Map<unknown, unknown>, value: unknown, plain: T): T {
  seen.set(value, plain);
  return plain;
}
