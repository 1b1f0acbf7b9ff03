import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startApp } from './support/app.js';
import { modelPayloadA, modelPost, modelUrlencoded } from './support/post-model.js';
import { FIELD_PATH, rawPost } from './support/service.js';

// Pieces of names and values as a client may put them on the wire.
const piece = fc.oneof(
  fc.constantFrom(...'abcxyzID019_-.[] ~!*()'.split('')).map((c) => Buffer.from(c)),
  fc.constant(Buffer.from('+')),
  fc.integer({ min: 0, max: 255 }).map((b) => Buffer.from(`%${b.toString(16).padStart(2, '0')}`)),
  fc.constantFrom('%ZZ', '%4', '%', '%G1', '%%').map((s) => Buffer.from(s)),
  fc.constantFrom('ñ', 'ó', '✓', '😀', 'ü').map((s) => Buffer.from(s)),
  fc.integer({ min: 0x80, max: 0xff }).map((b) => Buffer.from([b])),
);
const pieces = fc.array(piece, { maxLength: 8 }).map((list) => Buffer.concat(list));
const knownName = fc
  .constantFrom(
    'id',
    'field',
    'value',
    'idEmpresa',
    'idUsuario',
    'delete',
    '__proto__',
    'constructor',
    'prototype',
    '__proto__[polluted]',
    'id[]',
    'value[a]',
    'field[x][y]',
    'idEmpresa[]',
    'id[',
    'a.b',
    ' id',
    'i d',
    '[id]',
    'id]',
    'val ue',
  )
  .map((s) => Buffer.from(s));
const knownValue = fc.constantFrom('benef_emp', '12', ' 15', '1e3', 'abc', '', '12abc').map((s) => Buffer.from(s));
const segment = fc.record({
  name: fc.oneof({ weight: 3, arbitrary: knownName }, { weight: 1, arbitrary: pieces }),
  value: fc.option(fc.oneof(knownValue, pieces), { nil: undefined }),
});
const urlencodedBody = fc
  .array(segment, { maxLength: 12 })
  .map((segments) =>
    Buffer.concat(segments.flatMap(({ name, value }, i) => [Buffer.from(i ? '&' : ''), name, ...(value ? [Buffer.from('='), value] : [])])),
  );

let app: Awaited<ReturnType<typeof startApp>>;
let cookie: string;
beforeAll(async () => {
  app = await startApp();
  cookie = await app.signIn();
});
afterAll(() => app.close());

/** Posts `body` and checks the service against the model: the same payload upstream, or the same refusal. */
async function checkAgainstModel(body: Buffer, contentType: string, pairs: Array<[string, string]>): Promise<void> {
  const calls = app.upstream.calls.length;
  const response = await rawPost(`${app.url}${FIELD_PATH}`, body, { cookie, 'content-type': contentType });
  const expected = modelPayloadA(modelPost(pairs));
  if (expected === 'invalid') {
    expect(await response.text()).toBe('{"ok":false,"msg":"Parámetros inválidos."}');
    expect(app.upstream.calls).toHaveLength(calls);
    return;
  }
  expect(await response.text()).toBe('{"ok":true}');
  expect(app.upstream.calls).toHaveLength(calls + 1);
  const sent = app.upstream.calls.at(-1)?.payload;
  expect(sent).toEqual(expected);
  expect(Object.keys(sent ?? {})).toEqual(Object.keys(expected));
}

describe('the parameter reader against a model of the contract ($_POST)', () => {
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  it('reads urlencoded bodies as the model does', async () => {
    await fc.assert(
      fc.asyncProperty(urlencodedBody, (body) => checkAgainstModel(body, 'application/x-www-form-urlencoded', modelUrlencoded(body))),
      { numRuns: 300 },
    );
  });

  it('reads multipart bodies as the model does, files never being parameters', async () => {
    const safeName = fc.oneof(knownName, pieces).filter((name) => !/["\r\n\0]/.test(name.toString('latin1')) && name.length > 0);
    const part = fc.record({
      name: safeName,
      value: fc.oneof(knownValue, pieces, fc.constant(Buffer.from('line 1\r\nline 2'))),
      contentType: fc.constantFrom(undefined, 'text/plain', 'application/octet-stream', 'text/plain; charset=utf-8'),
      file: fc.constantFrom(undefined, 'notes.txt', ''),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 8 }), async (parts) => {
        const boundary = 'fcBoundary7MA4YWxkTrZu0gW';
        const body = Buffer.concat([
          ...parts.flatMap((p) => [
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="`),
            p.name,
            Buffer.from(
              `"${p.file === undefined ? '' : `; filename="${p.file}"`}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`,
            ),
            p.value,
            Buffer.from('\r\n'),
          ]),
          Buffer.from(`--${boundary}--\r\n`),
        ]);
        const fields = parts
          .filter((p) => p.file === undefined)
          .map((p): [string, string] => [new TextDecoder().decode(p.name), new TextDecoder().decode(p.value)]);
        await checkAgainstModel(body, `multipart/form-data; boundary=${boundary}`, fields);
      }),
      { numRuns: 150 },
    );
  });

  it('never touches an object prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
