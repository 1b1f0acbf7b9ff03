import { describe, expect, it } from 'vitest';
import { decodePhpSession, PhpSessionDecodeError, unserializePhp, type PhpValue } from '../../src/php-session.js';

const bytes = (text: string | Buffer) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
const decode = (text: string | Buffer) => unserializePhp(bytes(text));
const rejects = (text: string | Buffer) => expect(() => decode(text)).toThrow(PhpSessionDecodeError);

describe('PHP decoder: inputs it must refuse, quickly and without allocating what they declare', () => {
  it('refuses truncated data at every cut of a real session', () => {
    const data = Buffer.from('user|a:2:{s:2:"id";i:7;s:6:"nombre";s:11:"Ana Núñez";}LAST|i:1763776800;');
    // The one proper prefix that is a whole session ends after the first value.
    const wholeSession = data.indexOf('}LAST') + 1;
    for (let cut = 1; cut < data.length; cut += 1) {
      const decode = () => decodePhpSession(data.subarray(0, cut), 'php');
      if (cut === wholeSession) expect(decode().vars.size).toBe(1);
      else expect(decode, `a prefix of ${cut} bytes`).toThrow(PhpSessionDecodeError);
    }
    expect(decodePhpSession(data, 'php').vars.get('LAST')).toBe(1763776800);
  });

  it('refuses padding and trailing bytes', () => {
    rejects('i:1;x');
    rejects('i:1; ');
    rejects('s:3:"abc";;');
    expect(() => decodePhpSession(bytes('a|i:1;b'), 'php')).toThrow(PhpSessionDecodeError);
    expect(() => decodePhpSession(bytes('a:1:{s:1:"a";i:1;}N;'), 'php_serialize')).toThrow(PhpSessionDecodeError);
    expect(() => decodePhpSession(Buffer.from([1, 0x61, 0x69, 0x3a, 0x31, 0x3b, 5, 0x61]), 'php_binary')).toThrow(PhpSessionDecodeError);
  });

  it('counts string lengths in bytes, not characters', () => {
    expect(decode('s:2:"ñ";')).toBe('ñ');
    rejects('s:1:"ñ";');
    expect(decode(Buffer.concat([Buffer.from('s:3:"'), Buffer.from([0x61, 0xff, 0x62]), Buffer.from('";')]))).toBe('a\ufffdb');
    expect(decode('s:3:"\ufeffa"'.replace('3', '4') + ';')).toBe('\ufeffa');
  });

  it('refuses huge declared lengths and counts before reading them', () => {
    rejects('s:4294967295:"a";');
    rejects('s:99999999999999999999:"a";');
    rejects('a:1000000000:{i:0;i:1;}');
    rejects(`a:1000000:{${'i:0;N;'.repeat(1000)}}`);
    rejects('O:8:"stdClass":1000000000:{}');
  });

  it('refuses nesting deeper than 64 (10 000 levels deep included)', () => {
    const nested = (depth: number) => 'a:1:{i:0;'.repeat(depth) + 'N;' + '}'.repeat(depth);
    expect(decode(nested(64))).toBeInstanceOf(Map);
    rejects(nested(65));
    rejects(nested(10_000));
    rejects('O:8:"stdClass":1:{s:1:"a";'.repeat(10_000) + 'N;' + '}'.repeat(10_000));
  });

  it('refuses more than the size and value limits', () => {
    expect(() => unserializePhp(bytes(`s:20:"${'x'.repeat(20)}";`), { maxBytes: 16 })).toThrow(PhpSessionDecodeError);
    expect(() => unserializePhp(bytes(`a:100:{${'i:0;N;'.repeat(100)}}`), { maxValues: 50 })).toThrow(PhpSessionDecodeError);
  });

  it('keeps __proto__ and constructor as plain keys: no prototype is reachable or changed', () => {
    const value = decode('a:3:{s:9:"__proto__";a:1:{s:5:"admin";b:1;}s:11:"constructor";s:1:"x";s:2:"id";i:1;}') as Map<PhpValue, PhpValue>;
    expect(value.get('__proto__')).toBeInstanceOf(Map);
    expect(value.get('constructor')).toBe('x');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    const object = decode('O:8:"stdClass":1:{s:9:"__proto__";s:1:"p";}');
    expect(object).toMatchObject({ kind: 'object', className: 'stdClass' });
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
  });

  it('refuses references to no value, r: to a non-object, and references as keys', () => {
    rejects('a:1:{i:0;R:5;}');
    rejects('a:1:{i:0;R:0;}');
    rejects('a:1:{i:0;r:1;}');
    rejects('a:2:{i:0;i:1;i:1;r:2;}');
    rejects('a:1:{R:1;i:0;}');
    rejects('r:1;');
    rejects(`a:1:{i:0;R:${'9'.repeat(30)};}`);
  });

  it('refuses what PHP never writes: S:, a C: payload that does not end where it says, bad booleans and floats', () => {
    rejects('S:1:"\\61";');
    rejects('C:11:"ArrayObject":5:{}');
    rejects('C:11:"ArrayObject":0:{x');
    rejects('C:3:"1ab":0:{}');
    rejects('b:2;');
    rejects('d:1e+-5;');
    rejects('d:-NAN;');
    rejects('i:;');
    rejects('i:1e3;');
    rejects('O:3:"1ab":0:{}');
  });

  it('reads what PHP reads: saturating ints, numeric-string keys as ints, self references, unmangled names', () => {
    expect(decode('i:9223372036854775807;')).toBe(9223372036854775807n);
    expect(decode('i:99999999999999999999;')).toBe(9223372036854775807n);
    expect(decode('i:+007;')).toBe(7);
    expect(decode('d:-0;')).toBe(-0);
    expect(decode('d:INF;')).toBe(Infinity);
    // An old-style Serializable, as PHP reads it without its class: no code, its data skipped by its length.
    const legacy = decode('a:2:{i:0;C:6:"Legacy":14:{x:i:1;R:1;a:{}}i:1;r:2;}') as Map<PhpValue, PhpValue>;
    expect(legacy.get(0)).toEqual({
      kind: 'object',
      className: '__PHP_Incomplete_Class',
      properties: new Map([['__PHP_Incomplete_Class_Name', 'Legacy']]),
    });
    expect(legacy.get(1)).toBe(legacy.get(0));
    expect([...(decode('a:2:{s:1:"5";i:1;s:2:"05";i:2;}') as Map<PhpValue, PhpValue>).keys()]).toEqual([5, '05']);
    const self = decode('a:1:{i:0;R:1;}') as Map<PhpValue, PhpValue>;
    expect(self.get(0)).toBe(self);
    const object = decode('O:7:"Account":2:{s:12:"\0Account\0pin";i:1;s:7:"\0*\0role";s:1:"a";}');
    expect(object).toMatchObject({
      className: 'Account',
      properties: new Map<string, PhpValue>([
        ['pin', 1],
        ['role', 'a'],
      ]),
    });
    const shared = decode('a:2:{i:0;O:8:"stdClass":0:{}i:1;r:2;}') as Map<PhpValue, PhpValue>;
    expect(shared.get(1)).toBe(shared.get(0));
  });

  it('numbers references across all top-level keys of a session', () => {
    const php = decodePhpSession(bytes('a|O:8:"stdClass":1:{s:1:"x";i:1;}b|r:1;c|i:5;d|R:4;'), 'php');
    expect(php.vars.get('b')).toBe(php.vars.get('a'));
    expect(php.vars.get('d')).toBe(5);
    const serialized = decodePhpSession(
      bytes('a:4:{s:1:"a";O:8:"stdClass":1:{s:1:"x";i:1;}s:1:"b";r:2;s:1:"c";i:5;s:1:"d";R:5;}'),
      'php_serialize',
    );
    expect(serialized.vars.get('b')).toBe(serialized.vars.get('a'));
    expect(serialized.vars.get('d')).toBe(5);
  });

  it('steps over the values it does not build by the same rules as it builds them', () => {
    const only = new Set(['user']);
    const session = (other: string) => bytes(`other|${other}user|a:1:{s:2:"id";i:1;}`);
    const verdict = (run: () => unknown) => {
      try {
        run();
        return 'read';
      } catch (error) {
        if (error instanceof PhpSessionDecodeError) return 'refused';
        throw error;
      }
    };
    const floats = [
      '1',
      '1.',
      '.5',
      '-0',
      '+1.5E-3',
      '1e5',
      'NAN',
      'INF',
      '-INF',
      '1e',
      '.',
      '-',
      'e5',
      'INFX',
      '-NAN',
      '1e+-5',
      '1.2.3',
      '',
      ' 1',
    ];
    const ints = ['0', '+7', '-7', '007', '', '+', '1 ', `${'9'.repeat(41)}`, `${'9'.repeat(40)}`];
    const others = [
      'a:1:{i:0;i:1;}',
      'a:2:{i:0;i:1;}',
      'a:1:{R:1;i:0;}',
      'a:1:{i:0;R:5;}',
      'O:8:"stdClass":1:{s:4:"\0a\0b";i:1;}',
      'O:8:"stdClass":1:{s:2:"\0a";i:1;}',
      'O:3:"1ab":0:{}',
      'E:13:"Suit:Hearts";',
      'E:4:"Suit";',
      'r:1;',
      'C:6:"Legacy":2:{ab}',
      'C:6:"Legacy":3:{ab}',
      'b:2;',
      'S:1:"a";',
      `${'a:1:{i:0;'.repeat(70)}N;${'}'.repeat(70)}`,
    ];
    const cases = [...floats.map((text) => `d:${text};`), ...ints.map((text) => `i:${text};`), ...others];
    for (const other of cases) {
      const built = verdict(() => decodePhpSession(session(other), 'php'));
      const skipped = verdict(() => decodePhpSession(session(other), 'php', undefined, only));
      expect(skipped, other).toBe(built);
    }
    expect(cases.map((other) => verdict(() => decodePhpSession(session(other), 'php', undefined, only)))).toContain('read');
    expect(cases.map((other) => verdict(() => decodePhpSession(session(other), 'php', undefined, only)))).toContain('refused');
  });

  it('builds a value the built one refers to, however it was stepped over', () => {
    const data = bytes(
      'other|a:2:{i:0;O:8:"stdClass":1:{s:1:"x";i:5;}i:1;a:1:{i:0;s:1:"y";}}user|a:3:{s:2:"id";i:1;s:1:"o";r:2;s:1:"l";R:4;}',
    );
    const user = decodePhpSession(data, 'php', undefined, new Set(['user'])).vars.get('user') as Map<PhpValue, PhpValue>;
    const full = decodePhpSession(data, 'php').vars.get('user') as Map<PhpValue, PhpValue>;
    expect(user).toEqual(full);
    expect(user.get('o')).toMatchObject({ className: 'stdClass', properties: new Map([['x', 5]]) });
    expect(user.get('l')).toEqual(new Map([[0, 'y']]));
  });
});
