import { describe, expect, it } from 'vitest';
import { phpFormParams, readStrings, STRUCTURED } from '../src/form-params.js';

const params = (pairs: Array<[string, string]>) => Object.fromEntries(phpFormParams(pairs));

describe('phpFormParams: $_POST from name/value pairs', () => {
  it('keeps the last of repeated names', () => {
    expect(
      params([
        ['id', '1'],
        ['id', '2'],
      ]),
    ).toEqual({ id: '2' });
  });

  it.each<[string, Record<string, unknown>]>([
    ['id[]', { id: STRUCTURED }],
    ['id[0]', { id: STRUCTURED }],
    ['value[a][b]', { value: STRUCTURED }],
    ['a.b', { a_b: '1' }],
    ['a b', { a_b: '1' }],
    ['  id', { id: '1' }],
    ['id[', { id_: '1' }],
    ['a.b[c', { a_b_c: '1' }],
    ['a[b.c]', { a: STRUCTURED }],
    ['[id]', {}],
    ['', {}],
  ])('reads the name %j as PHP does', (name, expected) => {
    expect(params([[name, '1']])).toEqual(expected);
  });

  it('lets a later plain value replace an array, and the reverse', () => {
    expect(
      params([
        ['id[]', '1'],
        ['id', '2'],
      ]),
    ).toEqual({ id: '2' });
    expect(
      params([
        ['id', '2'],
        ['id[]', '1'],
      ]),
    ).toEqual({ id: STRUCTURED });
  });

  it('never touches an object prototype', () => {
    const result = phpFormParams([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['__proto__[polluted]', 'z'],
      ['prototype', 'w'],
    ]);
    expect(result.get('__proto__')).toBe(STRUCTURED);
    expect(result.get('constructor')).toBe('y');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('readStrings', () => {
  it('reads absent names as undefined', () => {
    expect(readStrings(phpFormParams([['a', 'x']]), ['a', 'b'])).toEqual({ ok: true, values: { a: 'x', b: undefined } });
  });

  it('fails when a read name is structured, not when another one is', () => {
    const p = phpFormParams([
      ['a[]', 'x'],
      ['b', 'y'],
    ]);
    expect(readStrings(p, ['a', 'b'])).toEqual({ ok: false });
    expect(readStrings(p, ['b'])).toEqual({ ok: true, values: { b: 'y' } });
  });
});

describe('phpFormParams on long names', () => {
  it('turns spaces, dots (and after an unclosed [, brackets) into _ across a name of many blocks', () => {
    const middle = 'ñ. x😀'.repeat(5000);
    expect([...phpFormParams([[`a${middle}`, '1']]).keys()]).toEqual([`a${middle.replace(/[ .]/g, '_')}`]);
    const bracketed = `${middle}[`.repeat(3);
    expect([...phpFormParams([[`a[${bracketed}`, '1']]).keys()]).toEqual([`a_${bracketed.replace(/[ .[]/g, '_')}`]);
  });
});
