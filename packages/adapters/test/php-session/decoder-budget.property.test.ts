import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILD_FACTOR, decodePhpSession, PhpSessionDecodeError, SESSION_FORMATS, type PhpSessionFormat } from '../../src/php-session.js';
import { toPlain } from '../../src/php-session/to-plain.js';
import { testSeed } from '../../src/testing/test-seed.js';
import { encodeSession, int, list, plainOf, ref, str, type Model } from '../support/session-model.js';

// What a reader builds, counted by the reader itself (values, bytes of strings): never a timing.
const withinBudget = (data: Buffer, built: { values: number; bytes: number }) =>
  built.values <= BUILD_FACTOR * data.length && built.bytes <= BUILD_FACTOR * data.length;

/**
 * Where `actual` differs from `expected` (plain data, shared values shared), or undefined. Each pair of
 * objects is compared once, and must pair the same way wherever it recurs: linear, where a deep equality
 * would walk every path of a value shared at many levels, and stricter, as it checks the sharing too.
 */
function differs(actual: unknown, expected: unknown, pairs = new Map<object, object>(), path = 'user'): string | undefined {
  if (typeof expected !== 'object' || expected === null) return Object.is(actual, expected) ? undefined : `${path}: ${String(actual)}`;
  if (typeof actual !== 'object' || actual === null) return `${path}: not an object`;
  const paired = pairs.get(actual);
  if (paired !== undefined) return paired === expected ? undefined : `${path}: shared differently`;
  pairs.set(actual, expected);
  const keys = Object.keys(expected);
  if (Object.keys(actual).join('\0') !== keys.join('\0')) return `${path}: keys ${Object.keys(actual).join(',')}`;
  for (const key of keys) {
    const problem = differs((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], pairs, `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** Decodes `vars` written in `format`, every key built and the user alone, and checks the user and the counters. */
function checkSession(vars: (readonly [string, Model])[], format: PhpSessionFormat): void {
  const data = encodeSession(vars, format);
  const user = vars.find(([name]) => name === 'user')![1];
  for (const only of [undefined, new Set(['user'])]) {
    const decoded = decodePhpSession(data, format, undefined, only);
    expect(differs(toPlain(decoded.vars.get('user')!), plainOf(user))).toBeUndefined();
    expect(
      withinBudget(data, decoded.built),
      `${format}, ${data.length} bytes built ${decoded.built.values} values, ${decoded.built.bytes} bytes`,
    ).toBe(true);
  }
}

// Sessions as repetitive as PHP lets them be: a few strings (some long) repeated, arrays and objects
// referenced many times, references to references, values nested in ones referenced again.
const text = fc.string({ unit: fc.constantFrom('a', 'ñ', '😀', '"', ';', '|', '\0', 'z'), minLength: 1, maxLength: 800 });
const item = fc.oneof(
  fc.record({ kind: fc.constant('string' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('int' as const), value: fc.integer({ min: -70_000, max: 70_000 }) }),
  fc.record({ kind: fc.constant('ref' as const), back: fc.nat() }),
  fc.record({
    kind: fc.constant('repeat' as const),
    pick: fc.nat(),
    back: fc.nat(),
    count: fc.integer({ min: 1, max: 200 }),
    refs: fc.boolean(),
  }),
);
const definition = fc.record({
  kind: fc.constantFrom('array' as const, 'object' as const, 'string' as const, 'ref' as const),
  items: fc.array(item, { maxLength: 6 }),
  pick: fc.nat(),
  back: fc.nat(),
});
const sessionSpec = fc.record({
  pool: fc.array(text, { minLength: 1, maxLength: 4 }),
  definitions: fc.array(definition, { minLength: 1, maxLength: 10 }),
  user: fc.array(item, { maxLength: 8 }),
});

type Spec = typeof sessionSpec extends fc.Arbitrary<infer T> ? T : never;

/** The spec as session variables `k0…` and `user`, each reference to a value written before it. */
function sessionOf(spec: Spec): (readonly [string, Model])[] {
  const defined: Model[] = [];
  const pooled = (pick: number) => str(spec.pool[pick % spec.pool.length]!);
  const earlier = (back: number) => defined[defined.length - 1 - (back % defined.length)];
  const items = (specs: Spec['user']): Model[] =>
    specs.flatMap((s): Model[] => {
      const target = earlier(s.kind === 'ref' || s.kind === 'repeat' ? s.back : 0);
      if (s.kind === 'string') return [pooled(s.pick)];
      if (s.kind === 'int') return [int(s.value)];
      if (s.kind === 'ref') return target ? [ref(target)] : [];
      // Many copies of one string (igbinary's table makes them indexes), or many references to one value.
      return [list(Array.from({ length: s.count }, () => (s.refs && target ? ref(target) : pooled(s.pick))))];
    });
  for (const d of spec.definitions) {
    const target = earlier(d.back);
    if (d.kind === 'string') defined.push(pooled(d.pick));
    else if (d.kind === 'ref' && target) defined.push(ref(target));
    else if (d.kind === 'object') defined.push({ kind: 'object', properties: items(d.items).map((v, i) => [`p${i}`, v] as const) });
    else defined.push(list(items(d.items)));
  }
  const vars = defined.map((model, i) => [`k${i}`, model] as const);
  return [...vars, ['user', { kind: 'array', items: [['id', int(7)], ...items(spec.user).map((v, i) => [i, v] as const)] }]];
}

describe('PHP session decoders: what they build stays within BUILD_FACTOR × the session size', () => {
  const seed = testSeed();
  for (const format of SESSION_FORMATS) {
    it(`builds each repeated string and referenced value once (${format}, seed ${seed}; rerun with TEST_SEED=${seed})`, () => {
      fc.assert(
        fc.property(sessionSpec, (spec) => checkSession(sessionOf(spec), format)),
        { seed, numRuns: 60 },
      );
    });
  }

  // The reviewer's sessions: one 50 KB string 20 000 times (150 KB of igbinary) and ~100 000 times (600 KB).
  for (const copies of [20_000, 99_990]) {
    it(`reads an igbinary session repeating one 50 KB string ${copies} times: the string built once`, () => {
      const big = 'x'.repeat(50_000);
      const user: Model = {
        kind: 'array',
        items: [
          ['id', int(7)],
          ['name', str('Ana')],
          ['tags', list(Array.from({ length: copies }, () => str(big)))],
        ],
      };
      const data = encodeSession(
        [
          ['user', user],
          ['LAST_ACTIVITY', int(1_763_776_800)],
        ],
        'igbinary',
      );
      const decoded = decodePhpSession(data, 'igbinary', undefined, new Set(['user', 'LAST_ACTIVITY']));
      const tags = (toPlain(decoded.vars.get('user')!) as { tags: Record<string, string> }).tags;
      expect(Object.keys(tags)).toHaveLength(copies);
      expect(tags[copies - 1]).toBe(big);
      expect(decoded.built.bytes).toBeLessThan(big.length + 100);
      expect(withinBudget(data, decoded.built)).toBe(true);
    });
  }

  it('reads a 50 KB `&` string in a skipped variable, referenced 20 000 times by the user: built once', () => {
    const big = str('y'.repeat(50_000));
    const user: Model = {
      kind: 'array',
      items: [
        ['id', int(7)],
        ['tags', list(Array.from({ length: 20_000 }, () => ref(big)))],
      ],
    };
    for (const format of SESSION_FORMATS) {
      const data = encodeSession(
        [
          ['big', big],
          ['user', user],
        ],
        format,
      );
      const decoded = decodePhpSession(data, format, undefined, new Set(['user']));
      expect(toPlain(decoded.vars.get('user')!)).toEqual(plainOf(user));
      // The string once, and the names of keys (igbinary's reader builds the session's own too).
      expect(decoded.built.bytes, format).toBeGreaterThanOrEqual(50_000);
      expect(decoded.built.bytes, format).toBeLessThan(50_020);
      // One value per reference, the string itself once: nothing built again per use.
      expect(decoded.built.values, format).toBeLessThan(20_010);
    }
  });

  it('builds a stepped-over value once when a reference names it and another names what holds it', () => {
    const inner = list([str('w'.repeat(10_000))]);
    const outer = list([inner, int(3)]);
    const user: Model = {
      kind: 'array',
      items: [
        ['id', int(7)],
        ['inner', ref(inner)],
        ['outer', ref(outer)],
        ['again', ref(inner)],
      ],
    };
    for (const format of SESSION_FORMATS) {
      const data = encodeSession(
        [
          ['k0', outer],
          ['user', user],
        ],
        format,
      );
      const decoded = decodePhpSession(data, format, undefined, new Set(['user']));
      const plain = toPlain(decoded.vars.get('user')!) as { inner: unknown; outer: Record<string, unknown>; again: unknown };
      expect(plain).toEqual(plainOf(user));
      expect(plain.outer[0], format).toBe(plain.inner);
      expect(plain.again, format).toBe(plain.inner);
      expect(decoded.built.bytes, format).toBeLessThan(10_050);
    }
  });

  it('shares nested arrays referenced twice at each of 60 levels: linear to build and to make plain', () => {
    // Every variable built as it comes (a user referring to 60 chained stepped-over ones is refused below).
    // level i = [level i-1, level i-1]: 2^60 values if any step copied what it shares.
    const levels: Model[] = [list([int(1)])];
    for (let i = 1; i < 60; i += 1) levels.push(list([ref(levels[i - 1]!), ref(levels[i - 1]!)]));
    const vars = levels.map((model, i) => [`k${i}`, model] as const);
    for (const format of SESSION_FORMATS) {
      const data = encodeSession(
        [
          ...vars,
          [
            'user',
            {
              kind: 'array',
              items: [
                ['id', int(7)],
                ['all', ref(levels.at(-1)!)],
              ],
            },
          ],
        ],
        format,
      );
      const decoded = decodePhpSession(data, format);
      expect(decoded.built.values, format).toBeLessThan(300);
      let plain = (toPlain(decoded.vars.get('user')!) as { all: Record<string, unknown> }).all;
      for (let i = 59; i > 0; i -= 1) {
        expect(plain[0], `${format} level ${i}`).toBe(plain[1]);
        plain = plain[0] as Record<string, unknown>;
      }
      expect(plain[0]).toBe(1);
    }
  });

  it('refuses, unbuilt, a session that would build more than its budget', () => {
    const data = encodeSession([['user', list([str('z'.repeat(1000))])]], 'igbinary');
    expect(() => decodePhpSession(data, 'igbinary', { buildFactor: 0.5 })).toThrow(/building more than \d+ bytes of strings/);
    expect(() => decodePhpSession(data, 'igbinary', { buildFactor: 0.001 })).toThrow(PhpSessionDecodeError);
    expect(decodePhpSession(data, 'igbinary', { buildFactor: 1 }).vars.size).toBe(1);
    const php = encodeSession([['user', list(Array.from({ length: 100 }, () => int(1)))]], 'php');
    expect(() => decodePhpSession(php, 'php', { buildFactor: 0.1 })).toThrow(/building more than \d+ values/);
  });

  it('refuses references to stepped-over values chained more than 16 deep (no stack to exhaust)', () => {
    const chain = (length: number) => {
      const defined: Model[] = [list([int(0)])];
      for (let i = 1; i < length; i += 1) defined.push(list([ref(defined[i - 1]!)]));
      return [...defined.map((model, i) => [`k${i}`, model] as const), ['user', ref(defined.at(-1)!)] as const];
    };
    for (const format of SESSION_FORMATS) {
      expect(decodePhpSession(encodeSession(chain(16), format), format, undefined, new Set(['user'])).vars.get('user')).toBeInstanceOf(Map);
      expect(() => decodePhpSession(encodeSession(chain(17), format), format, undefined, new Set(['user'])), format).toThrow(
        /chained more than 16/,
      );
      expect(() => decodePhpSession(encodeSession(chain(5000), format), format, undefined, new Set(['user'])), format).toThrow(
        PhpSessionDecodeError,
      );
      // Built as they come, nothing is chained.
      expect(decodePhpSession(encodeSession(chain(5000), format), format).vars.size).toBe(5001);
    }
  });
});
