import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multipartBoundary, multipartParser } from '../src/http/multipart-parser.js';
import { Rejection } from '../src/http/rejection.js';

/** Parses `body` fed in the given pieces; the fields, or the Rejection thrown. */
function parse(body: Buffer | string, boundary = 'b', cuts: number[] = []): Array<[string, string]> | Rejection {
  const bytes = Buffer.from(body);
  const fields: Array<[string, string]> = [];
  const parser = multipartParser(boundary, (name, value) => fields.push([name, value]));
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  try {
    let from = 0;
    for (const point of [...points, bytes.length]) {
      parser.write(bytes.subarray(from, point));
      from = point;
    }
    parser.end();
    return fields;
  } catch (error) {
    if (error instanceof Rejection) return error;
    throw error;
  }
}

const part = (disposition: string, value: string, extra = '') => `--b\r\nContent-Disposition: ${disposition}\r\n${extra}\r\n${value}\r\n`;

describe('multipartParser: PHP reading of multipart/form-data', () => {
  it.each<[string, string, Array<[string, string]>]>([
    [
      'fields in order, values with line breaks',
      `${part('form-data; name="id"', '1')}${part('form-data; name="value"', 'a\r\nb')}--b--\r\n`,
      [
        ['id', '1'],
        ['value', 'a\r\nb'],
      ],
    ],
    ['a preamble and an epilogue are ignored', `ignored\r\n${part('form-data; name="id"', '2')}--b--\r\nignored too`, [['id', '2']]],
    ['transport padding after a delimiter', `--b  \t\r\nContent-Disposition: form-data; name="id"\r\n\r\n3\r\n--b--`, [['id', '3']]],
    [
      'a part with a filename (even empty) is a file, whatever its type',
      `${part('form-data; name="a"; filename=""', 'x')}${part('form-data; name="b"; filename="f.txt"', 'y', 'Content-Type: text/plain\r\n')}${part('form-data; name="c"', 'z', 'Content-Type: application/octet-stream\r\n')}--b--`,
      [['c', 'z']],
    ],
    ['filename* alone is not a file', `${part('form-data; name="d"; filename*=UTF-8\'\'x.txt', 'v')}--b--`, [['d', 'v']]],
    ['a part without a name, or without headers, is skipped', `${part('form-data', 'x')}--b\r\n\r\nno headers\r\n--b--`, []],
    [
      'quotes, escapes and ; inside quotes',
      `${part('form-data; name="a\\"b;c"', '1')}${part("form-data; name='single'", '2')}${part('form-data; name=bare', '3')}--b--`,
      [
        ['a"b;c', '1'],
        ['single', '2'],
        ['bare', '3'],
      ],
    ],
    [
      'header and parameter names in any case; the last name wins',
      `--b\r\ncontent-DISPOSITION: form-data; NAME="first"; name="last"\r\n\r\nv\r\n--b--`,
      [['last', 'v']],
    ],
    ['a folded header line', `--b\r\nContent-Disposition: form-data;\r\n name="folded"\r\n\r\nv\r\n--b--`, [['folded', 'v']]],
    [
      'bytes that are not UTF-8 become U+FFFD',
      Buffer.concat([
        Buffer.from('--b\r\nContent-Disposition: form-data; name="n\xe9"\r\n\r\nv', 'latin1'),
        Buffer.from([0xff]),
        Buffer.from('\r\n--b--'),
      ]).toString('latin1'),
      [['n\uFFFD', 'v\uFFFD']],
    ],
    [
      'something that only looks like the delimiter is content',
      `${part('form-data; name="v"', 'x\r\n--a\r\n-b--b')}--b--`,
      [['v', 'x\r\n--a\r\n-b--b']],
    ],
  ])('%s', (_, body, fields) => {
    expect(parse(Buffer.from(body, 'latin1'))).toEqual(fields);
  });

  it.each([
    ['an empty body', ''],
    ['no delimiter at all', 'garbage'],
    ['no closing delimiter', '--b\r\nContent-Disposition: form-data; name="id"\r\n\r\n5'],
    ['headers that never end', '--b\r\nContent-Disposition: form-data; name="id"\r\n'],
    ['something else after a delimiter', '--bX\r\n\r\n--b--'],
  ])('refuses %s with a 400', (_, body) => {
    const result = parse(body);
    expect(result).toBeInstanceOf(Rejection);
    expect((result as Rejection).status).toBe(400);
  });

  it('reads the same fields however the body is split into chunks', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'ñ', '\r', '\n', '-', 'b', '"', ' '), maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: text.filter((s) => !/["\r\n]/.test(s)), value: text, file: fc.boolean() }), { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (parts, cuts) => {
          // A value must not hold the delimiter itself, as a client's boundary guarantees.
          const boundary = 'XyZ-bound';
          const body = `${parts.map((p) => `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.file ? '; filename="f"' : ''}\r\n\r\n${p.value}\r\n`).join('')}--${boundary}--\r\n`;
          const expected = parts.filter((p) => !p.file).map((p): [string, string] => [p.name, p.value]);
          expect(parse(body, boundary, cuts)).toEqual(expected);
          expect(
            parse(
              body,
              boundary,
              Array.from({ length: Buffer.byteLength(body) }, (_, i) => i),
            ),
          ).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('multipartBoundary', () => {
  it.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['multipart/form-data; charset=utf-8; BOUNDARY="a b;c"', 'a b;c'],
    ['multipart/form-data; boundary = tok ; charset=x', 'tok'],
    ['multipart/form-data;boundary="q"', 'q'],
    ['multipart/form-data; boundary=' + 'x'.repeat(70), 'x'.repeat(70)],
  ])('%s → %s', (contentType, boundary) => {
    expect(multipartBoundary(contentType)).toBe(boundary);
  });

  it.each([
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=""',
    `multipart/form-data; boundary=${'x'.repeat(71)}`,
  ])('refuses %j with a 400', (contentType) => {
    expect(() => multipartBoundary(contentType)).toThrow(expect.objectContaining({ status: 400 }) as Error);
  });
});
