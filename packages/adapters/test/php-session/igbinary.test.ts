import { describe, expect, it } from 'vitest';
import { decodePhpSession, isPhpObject, PhpSessionDecodeError, type PhpValue } from '../../src/php-session.js';
import { toPlain } from '../../src/php-session/to-plain.js';
import { testSeed } from '../../src/testing/test-seed.js';
import { BUILD_FACTOR } from '../../src/php-session.js';
import { encodeSession, int, list, ref, str, type Model } from '../support/session-model.js';

/** A session holding one variable `v` (string 0; the session is slot 0), its value given as hex. */
const session = (valueHex: string) => Buffer.from(`000000021401110176${valueHex.replaceAll(' ', '')}`, 'hex');
const v = (valueHex: string): PhpValue | undefined => decodePhpSession(session(valueHex), 'igbinary').vars.get('v');
const refuses = (data: Buffer) => expect(() => decodePhpSession(data, 'igbinary')).toThrow(PhpSessionDecodeError);
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

describe('igbinary decoder: each type code, as php-igbinary 3.2 writes it', () => {
  it('reads null, booleans and doubles', () => {
    expect(v('00')).toBeNull();
    expect(v('04')).toBe(false);
    expect(v('05')).toBe(true);
    expect(v('0c 3ff8000000000000')).toBe(1.5);
    expect(Object.is(v('0c 8000000000000000'), -0)).toBe(true);
    expect(v('0c 7ff8000000000000')).toBeNaN();
  });

  it('reads ints of 8, 16, 32 and 64 bits, positive and negative, to the 64-bit bounds', () => {
    expect(v('06 00')).toBe(0);
    expect(Object.is(v('07 00'), 0)).toBe(true);
    expect(v('06 ff')).toBe(255);
    expect(v('07 01')).toBe(-1);
    expect(v('08 0100')).toBe(256);
    expect(v('09 0100')).toBe(-256);
    expect(v('0a 00010000')).toBe(65536);
    expect(v('0b 00010000')).toBe(-65536);
    expect(v('20 0000000100000000')).toBe(4294967296);
    expect(v('20 7fffffffffffffff')).toBe(9223372036854775807n);
    expect(v('21 8000000000000000')).toBe(-9223372036854775808n);
    // Beyond them PHP refuses the data ("too big 64bit long").
    refuses(session('20 8000000000000000'));
    refuses(session('21 8000000000000001'));
  });

  it('reads strings of 8, 16 and 32-bit lengths, the empty string, and strings by index', () => {
    expect(v('0d')).toBe('');
    expect(v(`11 03 ${hex('abc')}`)).toBe('abc');
    expect(v(`12 0100 ${'78'.repeat(256)}`)).toBe('x'.repeat(256));
    expect(v(`13 00000002 ${hex('ñ')}`)).toBe('ñ');
    // String 0 is the key `v` itself; each string written whole takes the next index.
    expect(v('0e 00')).toBe('v');
    expect(toPlain(v(`1403 0600 11 01 ${hex('a')} 0601 0e 01 0602 0f 0001`)!)).toEqual(
      Object.assign(Object.create(null), { 0: 'a', 1: 'a', 2: 'a' }),
    );
    expect(toPlain(v(`1401 0600 10 00000000`)!)).toEqual(Object.assign(Object.create(null), { 0: 'v' }));
  });

  it('reads arrays of 8, 16 and 32-bit sizes with int and string keys, keeping a numeric string key a string as igbinary does', () => {
    const array = v(`14 03 07 01 0601 08 012c 0601 11 01 ${hex('5')} 0601`) as Map<PhpValue, PhpValue>;
    expect([...array.keys()]).toEqual([-1, 300, '5']);
    expect((v('15 0000') as Map<PhpValue, PhpValue>).size).toBe(0);
    expect((v('16 00000001 0600 00') as Map<PhpValue, PhpValue>).get(0)).toBeNull();
  });

  it('reads objects as data: class names whole and by index, private and protected names unmangled, never instantiated', () => {
    // class P { public $pub = 1; protected $pro = 2; private $pri = 3; }
    const object = v(`17 01 ${hex('P')} 14 03 11 03 ${hex('pub')} 0601 11 06 ${hex('\0*\0pro')} 0602 11 06 ${hex('\0P\0pri')} 0603`);
    expect(isPhpObject(object ?? null) && object).toMatchObject({
      className: 'P',
      properties: new Map([
        ['pub', 1],
        ['pro', 2],
        ['pri', 3],
      ]),
    });
    // Two objects of one class: the second names it by index (string 1).
    const two = v(`14 02 0600 17 08 ${hex('stdClass')} 1400 0601 1a 01 1400`) as Map<PhpValue, PhpValue>;
    expect([...two.values()].map((o) => isPhpObject(o) && o.className)).toEqual(['stdClass', 'stdClass']);
    expect(two.get(0)).not.toBe(two.get(1));
  });

  it('reads enum cases as data, and Serializable objects as incomplete ones, stepped over by their length', () => {
    expect(v(`17 04 ${hex('Suit')} 27 11 06 ${hex('Hearts')}`)).toEqual({ kind: 'enum', className: 'Suit', caseName: 'Hearts' });
    expect(toPlain(v(`17 01 ${hex('S')} 1d 03 ${hex('abc')}`)!)).toEqual(
      Object.assign(Object.create(null), { __PHP_Incomplete_Class_Name: 'S' }),
    );
    expect(isPhpObject(v(`17 01 ${hex('S')} 1e 0001 ${hex('x')}`) ?? null)).toBe(true);
    expect(isPhpObject(v(`17 01 ${hex('S')} 1f 00000000`) ?? null)).toBe(true);
  });

  it('numbers back-reference slots as igbinary does: arrays, objects and &-values take one; objref and ref share the value', () => {
    // [[1], $o, $o, &$s, &$s]: the session 0, `v` 1, [1] 2, $o 3, &$s 4.
    const array = v(
      `14 05 0600 1401 0600 0601 0601 17 08 ${hex('stdClass')} 1400 0602 22 03 0603 25 11 01 ${hex('q')} 0604 25 01 04`,
    ) as Map<PhpValue, PhpValue>;
    expect(array.get(2)).toBe(array.get(1));
    expect(array.get(3)).toBe('q');
    expect(array.get(4)).toBe('q');
    // A Serializable and an enum take a slot too.
    const serialized = v(`14 03 0600 17 01 ${hex('S')} 1d 00 0601 17 08 ${hex('stdClass')} 1400 0602 22 03`) as Map<PhpValue, PhpValue>;
    expect(serialized.get(2)).toBe(serialized.get(1));
    // An object reaching itself stays one shared value.
    const self = v(`17 08 ${hex('stdClass')} 14 01 11 04 ${hex('self')} 22 01`) ?? null;
    expect(isPhpObject(self) && self.properties.get('self')).toBe(self);
  });

  it('reads data written with igbinary.compact_strings=0: repeats written whole still take their index', () => {
    // php -d igbinary.compact_strings=0: ['user' => ['id' => 5, 'n' => 'ab'], 'k' => ['n' => 'ab', 'o' => $o, 'p' => $o, 'q' => new A], 'LAST' => 1700000000]
    const data = Buffer.from(
      '000000021403110475736572140211026964060511016e1102616211016b140411016e1102616211016f170141140111016e11017811017022031101711a08140111016e11017811044c4153540a6553f100',
      'hex',
    );
    const { vars } = decodePhpSession(data, 'igbinary');
    const k = vars.get('k') as Map<PhpValue, PhpValue>;
    expect(k.get('p')).toBe(k.get('o'));
    expect(isPhpObject(k.get('q') ?? null) && k.get('q')).toMatchObject({ className: 'A', properties: new Map([['n', 'x']]) });
    expect(vars.get('LAST')).toBe(1700000000);
  });

  it('builds a value another refers to only when asked, the same as built at once', () => {
    // `a` is stepped over when only `b` is asked for; `b` refers to the array inside it.
    const data = Buffer.from(
      `00000002 1402 1101${hex('a')} 1401 0600 1401 0600 11 02 ${hex('hi')} 1101${hex('b')} 01 02`.replaceAll(' ', ''),
      'hex',
    );
    const alone = decodePhpSession(data, 'igbinary', undefined, new Set(['b'])).vars;
    expect(alone.has('a')).toBe(false);
    expect(toPlain(alone.get('b')!)).toEqual(toPlain(decodePhpSession(data, 'igbinary').vars.get('b')!));
    expect((alone.get('b') as Map<PhpValue, PhpValue>).get(0)).toBe('hi');
  });
});

describe('igbinary decoder: inputs it must refuse, without allocating what they declare', () => {
  const real = session(`14 02 11 02 ${hex('id')} 0607 11 06 ${hex('nombre')} 11 0b ${hex('Ana Núñez')}`);

  it('refuses a wrong or missing header, and data in another format', () => {
    refuses(Buffer.from('0000000106', 'hex'));
    refuses(Buffer.from('0000000306', 'hex'));
    refuses(Buffer.from('00000002', 'hex'));
    refuses(Buffer.from('user|i:1;'));
    refuses(Buffer.from('a:1:{s:4:"user";i:1;}'));
    refuses(Buffer.from('0000000206', 'hex')); // a value, not the session's array
  });

  it('refuses truncated data at every cut of a real session, and trailing bytes', () => {
    for (let cut = 0; cut < real.length; cut += 1) {
      expect(() => decodePhpSession(real.subarray(0, cut), 'igbinary'), `a prefix of ${cut} bytes`).toThrow(PhpSessionDecodeError);
    }
    expect(toPlain(decodePhpSession(real, 'igbinary').vars.get('v')!)).toEqual(
      Object.assign(Object.create(null), { id: 7, nombre: 'Ana Núñez' }),
    );
    refuses(Buffer.concat([real, Buffer.of(0)]));
  });

  it('refuses huge declared lengths and sizes before reading them', () => {
    refuses(session('13 ffffffff 61'));
    refuses(session('16 ffffffff 0600 00'));
    refuses(session(`1d ffffffff`));
    refuses(session(`17 01 ${hex('S')} 1f ffffffff 61`));
    refuses(Buffer.from(`00000002 16 7fffffff 1101${hex('v')} 00`.replaceAll(' ', ''), 'hex'));
  });

  it('refuses back-references out of range: refs, objrefs, string and class indexes', () => {
    refuses(session('01 05'));
    refuses(session('01 00')); // the session array itself
    refuses(session('01 01')); // `v` is still being read
    refuses(session('22 01'));
    refuses(session('1401 0600 1400 0601 22 02')); // an objref to an array
    refuses(session('0e 01'));
    refuses(session('10 ffffffff'));
    refuses(session('1a 05 1400'));
    refuses(session('25 25 0601'));
  });

  it('refuses unknown type codes, keys that are neither ints nor strings, and invalid names', () => {
    for (const code of ['26', '28', '7f', 'ff']) refuses(session(code));
    refuses(session('1401 00 0601'));
    refuses(session('1401 0c3ff8000000000000 0601'));
    refuses(session(`17 00 1400`));
    refuses(session(`17 03 ${hex('a b')} 1400`));
    refuses(session(`17 01 ${hex('S')} 06 01`));
    refuses(session('1d 00')); // serialized data with no class before it
    refuses(session(`17 04 ${hex('Suit')} 27 11 01 ${hex('-')}`));
  });

  it('refuses nesting deeper than 64 (10 000 levels included) and more than the size and value limits', () => {
    const nested = (depth: number) => session(`${'1401 0600 '.repeat(depth)}00`);
    // `v` sits at depth 1 inside the session's array.
    expect(() => decodePhpSession(nested(63), 'igbinary')).not.toThrow();
    refuses(nested(64));
    refuses(nested(10_000));
    refuses(session(`${`17 08 ${hex('stdClass')} 1401 1101${hex('a')} `.repeat(1)}${'1a 01 1401 0e02 '.repeat(10_000)}00`));
    expect(() => decodePhpSession(real, 'igbinary', { maxBytes: real.length - 1 })).toThrow(PhpSessionDecodeError);
    expect(() => decodePhpSession(session(`14 64 ${'0600 00'.repeat(100)}`), 'igbinary', { maxValues: 50 })).toThrow(PhpSessionDecodeError);
  });

  it('throws nothing but its own error, whatever bytes a real session is changed into', () => {
    const random = seededRandom(testSeed());
    const rich = session(
      `14 06 0600 1401 0600 0601 0601 17 08 ${hex('stdClass')} 1401 1101${hex('a')} 25 0a 6553f100 0602 22 03 0603 25 01 04 0604 17 04 ${hex('Suit')} 27 1106${hex('Hearts')} 0605 17 01 ${hex('S')} 1d 02 ${hex('xy')}`,
    );
    decodePhpSession(rich, 'igbinary');
    let refused = 0;
    for (let run = 0; run < 5000; run += 1) {
      const mutated = Buffer.from(rich);
      for (let changes = 1 + Math.floor(random() * 3); changes > 0; changes -= 1)
        mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
      const only = random() < 0.5 ? new Set(['v']) : new Set<string>();
      try {
        const { vars } = decodePhpSession(mutated, 'igbinary', undefined, only);
        if (vars.has('v')) toPlain(vars.get('v')!);
      } catch (error) {
        expect(error, `seed ${testSeed()}, run ${run}`).toBeInstanceOf(PhpSessionDecodeError);
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('keeps what it builds within its budget, or refuses, whatever bytes a repetition-heavy session is changed into', () => {
    const random = seededRandom(testSeed());
    // One string, an `&` string, an array and an object, each written once and named again and again.
    const shared = str('s'.repeat(300));
    const array = list([str('a'.repeat(200)), int(5)]);
    const object: Model = { kind: 'object', properties: [['p', str('o'.repeat(100))]] };
    const uses = (n: number) => Array.from({ length: n }, (_, i) => [ref(shared), ref(array), ref(object), str('t'.repeat(250))][i % 4]!);
    const data = encodeSession(
      [
        ['k', shared],
        ['a', array],
        ['o', object],
        [
          'user',
          {
            kind: 'array',
            items: [
              ['id', int(7)],
              ['uses', list(uses(64))],
            ],
          },
        ],
      ],
      'igbinary',
    );
    let decoded = 0;
    for (let run = 0; run < 3000; run += 1) {
      const mutated = Buffer.from(data);
      for (let changes = 1 + Math.floor(random() * 3); changes > 0; changes -= 1)
        mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
      try {
        const { vars, built } = decodePhpSession(mutated, 'igbinary', undefined, random() < 0.5 ? new Set(['user']) : undefined);
        if (vars.has('user')) toPlain(vars.get('user')!);
        expect(built.values, `seed ${testSeed()}, run ${run}`).toBeLessThanOrEqual(BUILD_FACTOR * mutated.length);
        expect(built.bytes, `seed ${testSeed()}, run ${run}`).toBeLessThanOrEqual(BUILD_FACTOR * mutated.length);
        decoded += 1;
      } catch (error) {
        expect(error, `seed ${testSeed()}, run ${run}`).toBeInstanceOf(PhpSessionDecodeError);
      }
    }
    expect(decoded).toBeGreaterThan(0);
  });
});

/** mulberry32: a reproducible stream of numbers in [0, 1) from the test seed. */
function seededRandom(start: number): () => number {
  let seed = start;
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
