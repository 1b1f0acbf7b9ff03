import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { cookieHeader, FIELD_PATH, ITEM_PATH, form, startService, TOKEN, urlencoded, type TestService } from './support/service.js';

const FIELD_FAILED = '{"ok":false,"msg":"No se pudo actualizar la cotización."}';
const ITEM_FAILED = '{"ok":false,"msg":"No se pudo actualizar el ítem."}';

let svc: TestService;
let cookie: string;
beforeAll(async () => {
  // The upstream's deadline, short: one case lets the upstream hang.
  svc = await startService({ UPSTREAM_TIMEOUT_MS: '1000' });
  cookie = await svc.signIn('7');
});
afterAll(() => svc.close());
beforeEach(async () => {
  await svc.service.activityLog.flush();
  svc.stub.received.length = 0;
  svc.stub.answer({ json: { ok: true } });
});

const sent = () => svc.stub.received.map((request) => JSON.parse(request.body) as unknown);
const newRows = async (before: number) => (await svc.rows()).slice(before);

describe('session', () => {
  it.each([
    ['A', FIELD_PATH],
    ['B', ITEM_PATH],
  ])('%s without a session: "No autenticado", no upstream call, no log', async (_, path) => {
    const before = (await svc.rows()).length;
    await expectAnswer(await svc.post(path, form({ id: '12', field: 'x', delete: '' })), 200, '{"ok":false,"msg":"No autenticado"}');
    expect(svc.stub.received).toHaveLength(0);
    expect(await newRows(before)).toHaveLength(0);
  });

  it('refuses a forged cookie: a changed value under the old signature', async () => {
    const forgedValue = Buffer.from(JSON.stringify({ user: { id: '1' }, signedInAt: Date.now(), seenAt: Date.now() })).toString('base64');
    const forged = cookie.replace(/cotizaciones\.sid=[^;]+/, `cotizaciones.sid=${forgedValue}`);
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '12' }), { cookie: forged }), 200, '{"ok":false,"msg":"No autenticado"}');
    expect(svc.stub.received).toHaveLength(0);
  });

  it('refuses a session cookie without its signature', async () => {
    const unsigned = cookie
      .split('; ')
      .filter((part) => !part.startsWith('cotizaciones.sid.sig='))
      .join('; ');
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '12' }), { cookie: unsigned }), 200, '{"ok":false,"msg":"No autenticado"}');
  });

  it('signs out through /dev/logout', async () => {
    const mine = await svc.signIn('8');
    const logout = await fetch(`${svc.url}/dev/logout`, { method: 'POST', headers: { cookie: mine } });
    expect(logout.status).toBe(200);
    const cleared = logout.headers.getSetCookie().join('\n');
    expect(cleared).toMatch(/cotizaciones\.sid=;/);
    await expectAnswer(
      await svc.post(FIELD_PATH, form({ id: '1' }), { cookie: cookieHeader(logout) }),
      200,
      '{"ok":false,"msg":"No autenticado"}',
    );
  });

  it('sets the session cookie HttpOnly and SameSite=Lax (Secure only in production)', async () => {
    const response = await fetch(`${svc.url}/dev/login`, { method: 'POST', body: form({ id: '9' }) });
    const [sid] = response.headers.getSetCookie().filter((c) => c.startsWith('cotizaciones.sid='));
    expect(sid).toMatch(/; httponly/i);
    expect(sid).toMatch(/; samesite=lax/i);
    expect(sid).not.toMatch(/; secure/i);
  });
});

describe('operation A payloads', () => {
  it.each<[string, Record<string, string> | Array<[string, string]>, unknown]>([
    [
      'benef_emp sends idEmpresa and idUsuario, never value',
      { id: '5', field: 'benef_emp', value: 'v', idEmpresa: '3', idUsuario: '4' },
      { id: '5', field: 'benef_emp', idEmpresa: '3', idUsuario: '4' },
    ],
    ['benef_emp defaults', { id: '5', field: 'benef_emp' }, { id: '5', field: 'benef_emp', idEmpresa: 0, idUsuario: 0 }],
    ['another field sends value', { id: '5', field: 'nota', value: 'hola', idEmpresa: '3' }, { id: '5', field: 'nota', value: 'hola' }],
    ['all defaults', {}, { id: 0, field: '', value: '' }],
    [
      'the last duplicate wins',
      [
        ['id', '1'],
        ['id', '2'],
        ['value', 'a'],
        ['value', 'b'],
      ],
      { id: '2', field: '', value: 'b' },
    ],
    [
      'a prototype name is just a name',
      [
        ['__proto__', 'x'],
        ['constructor', 'y'],
        ['id', '3'],
      ],
      { id: '3', field: '', value: '' },
    ],
  ])('%s', async (_, pairs, payload) => {
    await expectAnswer(await svc.post(FIELD_PATH, form(pairs), { cookie }), 200, '{"ok":true}');
    expect(sent()).toEqual([payload]);
  });

  it('sends the token as a bearer header with JSON', async () => {
    await svc.post(FIELD_PATH, form({ id: '5' }), { cookie });
    const [request] = svc.stub.received;
    expect(request?.path).toBe('/api/cotizaciones/update');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('application/json');
  });
});

describe('reading parameters like $_POST', () => {
  it('ignores a JSON body', async () => {
    await svc.post(FIELD_PATH, JSON.stringify({ id: '5', field: 'x' }), { cookie, headers: { 'content-type': 'application/json' } });
    expect(sent()).toEqual([{ id: 0, field: '', value: '' }]);
  });

  it('ignores a text body', async () => {
    await svc.post(FIELD_PATH, 'id=5&field=x', { cookie, headers: { 'content-type': 'text/plain' } });
    expect(sent()).toEqual([{ id: 0, field: '', value: '' }]);
  });

  it('reads no parameters from a multipart body that is not form-data', async () => {
    const body = '--b\r\nContent-Disposition: form-data; name="id"\r\n\r\n5\r\n--b--\r\n';
    await svc.post(FIELD_PATH, body, { cookie, headers: { 'content-type': 'multipart/mixed; boundary=b' } });
    expect(sent()).toEqual([{ id: 0, field: '', value: '' }]);
  });

  it('ignores the query string', async () => {
    await svc.post(`${FIELD_PATH}?id=5&field=x&value=y`, form({}), { cookie });
    expect(sent()).toEqual([{ id: 0, field: '', value: '' }]);
  });

  it('reads no parameters from a POST without a body', async () => {
    await expectAnswer(await svc.post(FIELD_PATH, undefined, { cookie }), 200, '{"ok":true}');
    expect(sent()).toEqual([{ id: 0, field: '', value: '' }]);
  });

  it('matches the media type case-insensitively, with any charset, and reads UTF-8', async () => {
    await svc.post(FIELD_PATH, 'id=5&value=%C3%B1and%C3%BA', {
      cookie,
      headers: { 'content-type': 'Application/X-WWW-Form-URLEncoded; charset=ISO-8859-1' },
    });
    expect(sent()).toEqual([{ id: '5', field: '', value: 'ñandú' }]);
  });

  it('decodes + as space, keeps invalid escapes, maps invalid UTF-8 to U+FFFD, and reads bare names as empty', async () => {
    await svc.post(FIELD_PATH, urlencoded('id=5&field=a+b%20c&value=%ZZ%4%FF&idEmpresa').body, { cookie, headers: urlencoded('').headers });
    expect(sent()).toEqual([{ id: '5', field: 'a b c', value: '%ZZ%4\uFFFD' }]);
  });

  it("keeps a character after an invalid escape (Node's URLSearchParams does not)", async () => {
    await svc.post(FIELD_PATH, Buffer.from('id=5&value=%00%ZZñ'), { cookie, headers: urlencoded('').headers });
    expect(sent()).toEqual([{ id: '5', field: '', value: '\u0000%ZZñ' }]);
  });

  it('maps raw bytes that are not UTF-8 to U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('id=5&value=a'), Buffer.from([0xe9]), Buffer.from('b')]);
    await svc.post(FIELD_PATH, body, { cookie, headers: urlencoded('').headers });
    expect(sent()).toEqual([{ id: '5', field: '', value: 'a\uFFFDb' }]);
  });

  it.each([['id[]=1'], ['id[0]=1'], ['value[a]=x'], ['field[]=x'], ['idEmpresa[]=1&field=benef_emp'], ['idUsuario[a][b]=1']])(
    'rejects %s as invalid parameters, without calling the upstream or logging',
    async (body) => {
      const before = (await svc.rows()).length;
      await expectAnswer(
        await svc.post(FIELD_PATH, urlencoded(`id=3&${body}`).body.replace(/^id=3&(id)/, '$1'), {
          cookie,
          headers: urlencoded('').headers,
        }),
        200,
        '{"ok":false,"msg":"Parámetros inválidos."}',
      );
      expect(svc.stub.received).toHaveLength(0);
      expect(await newRows(before)).toHaveLength(0);
    },
  );

  it('ignores other bracketed names', async () => {
    await expectAnswer(
      await svc.post(
        FIELD_PATH,
        form([
          ['id', '3'],
          ['extra[]', '1'],
          ['x[a]', '2'],
        ]),
        { cookie },
      ),
      200,
      '{"ok":true}',
    );
    expect(sent()).toEqual([{ id: '3', field: '', value: '' }]);
  });
});

describe('multipart/form-data', () => {
  it('reads text parts as parameters, whatever their own Content-Type', async () => {
    const boundary = 'XyZ';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="id"',
      'Content-Type: text/plain; charset=utf-8',
      '',
      '14',
      `--${boundary}`,
      'Content-Disposition: form-data; name="field"',
      'Content-Type: application/json',
      '',
      'estado',
      `--${boundary}`,
      'Content-Disposition: form-data; name="value"',
      '',
      'línea 1\r\nlínea 2',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    await expectAnswer(
      await svc.post(FIELD_PATH, body, { cookie, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }),
      200,
      '{"ok":true}',
    );
    expect(sent()).toEqual([{ id: '14', field: 'estado', value: 'línea 1\r\nlínea 2' }]);
  });

  it('treats file parts as files (not parameters), and accepts an empty file input', async () => {
    const data = new FormData();
    data.append('id', '15');
    data.append('value', new Blob(['not a parameter']), 'value.txt');
    data.append('field', 'nota');
    data.append('adjunto', new Blob([]), '');
    await expectAnswer(await svc.post(FIELD_PATH, data, { cookie }), 200, '{"ok":true}');
    expect(sent()).toEqual([{ id: '15', field: 'nota', value: '' }]);
  });

  it('keeps the last duplicate and rejects array names, as urlencoded does', async () => {
    const data = new FormData();
    data.append('id', '1');
    data.append('id', '2');
    await svc.post(FIELD_PATH, data, { cookie });
    expect(sent()).toEqual([{ id: '2', field: '', value: '' }]);
    const nested = new FormData();
    nested.append('value[x]', '1');
    await expectAnswer(await svc.post(FIELD_PATH, nested, { cookie }), 200, '{"ok":false,"msg":"Parámetros inválidos."}');
  });

  it.each([
    ['no closing boundary', '--b\r\nContent-Disposition: form-data; name="id"\r\n\r\n5'],
    ['no boundary parameter', null],
  ])('answers 400 for a malformed body (%s)', async (_, body) => {
    const contentType = body === null ? 'multipart/form-data' : 'multipart/form-data; boundary=b';
    await expectAnswer(
      await svc.post(FIELD_PATH, body ?? '--x--', { cookie, headers: { 'content-type': contentType } }),
      400,
      '{"ok":false,"msg":"Solicitud inválida."}',
    );
    expect(svc.stub.received).toHaveLength(0);
  });
});

describe('operation B', () => {
  it.each<[string, string, unknown, string | undefined]>([
    ['delete with a value', 'id=8&delete=1&field=x&value=y', { id: '8', delete: 1 }, 'cotizaciones.item_delete'],
    ['delete empty', 'id=8&delete=', { id: '8', delete: 1 }, 'cotizaciones.item_delete'],
    ['delete bare', 'id=8&delete', { id: '8', delete: 1 }, 'cotizaciones.item_delete'],
    ['delete 0', 'id=8&delete=0', { id: '8', delete: 1 }, 'cotizaciones.item_delete'],
    ['update', 'id=8&field=cantidad&value=2', { id: '8', field: 'cantidad', value: '2' }, 'cotizaciones.item_update'],
  ])('%s', async (_, body, payload, event) => {
    const before = (await svc.rows()).length;
    await expectAnswer(await svc.post(ITEM_PATH, body, { cookie, headers: urlencoded('').headers }), 200, '{"ok":true}');
    expect(sent()).toEqual([payload]);
    expect(svc.stub.received[0]?.path).toBe('/api/cotizaciones/items/update');
    const rows = await newRows(before);
    expect(rows.map((row) => row.event_key)).toEqual([event]);
  });

  it('does not read delete from the query string', async () => {
    await svc.post(`${ITEM_PATH}?delete=1`, form({ id: '8', field: 'f', value: 'v' }), { cookie });
    expect(sent()).toEqual([{ id: '8', field: 'f', value: 'v' }]);
  });

  it('rejects delete[]', async () => {
    await expectAnswer(
      await svc.post(ITEM_PATH, 'id=8&delete[]=1', { cookie, headers: urlencoded('').headers }),
      200,
      '{"ok":false,"msg":"Parámetros inválidos."}',
    );
  });

  it('writes the contract rows for update and delete', async () => {
    const before = (await svc.rows()).length;
    await svc.post(ITEM_PATH, form({ id: '31', field: 'precio', value: '9' }), { cookie });
    await svc.post(ITEM_PATH, form({ id: '32', delete: '' }), { cookie });
    expect(await newRows(before)).toEqual([
      expect.objectContaining({
        module: 'Cotizaciones',
        event_key: 'cotizaciones.item_update',
        description: 'Actualizó ítem (detalle #31)',
        entity_type: 'cotizacion_item',
        entity_id: '31',
        details: '{"field":"precio"}',
        user_id: '7',
      }),
      expect.objectContaining({
        module: 'Cotizaciones',
        event_key: 'cotizaciones.item_delete',
        description: 'Eliminó ítem (detalle #32)',
        entity_type: 'cotizacion_item',
        entity_id: '32',
        details: null,
        user_id: '7',
      }),
    ]);
  });
});

describe('upstream answers', () => {
  it.each<[string, Parameters<TestService['stub']['answer']>[0], string, string]>([
    ['ok true', { json: { ok: true } }, '{"ok":true}', '{"ok":true}'],
    ['ok "true"', { json: { ok: 'true' } }, FIELD_FAILED, ITEM_FAILED],
    ['ok 1', { json: { ok: 1 } }, FIELD_FAILED, ITEM_FAILED],
    ['ok missing', { json: {} }, FIELD_FAILED, ITEM_FAILED],
    [
      'error.message present',
      { json: { ok: false, error: { message: 'No existe "x"' } } },
      '{"ok":false,"msg":"No existe \\"x\\""}',
      '{"ok":false,"msg":"No existe \\"x\\""}',
    ],
    ['error.message empty', { json: { ok: false, error: { message: '' } } }, FIELD_FAILED, ITEM_FAILED],
    ['error.message not a string', { json: { ok: false, error: { message: ['a'] } } }, FIELD_FAILED, ITEM_FAILED],
    ['error not an object', { json: { ok: false, error: 'falló' } }, FIELD_FAILED, ITEM_FAILED],
    ['a 500 HTML page', { status: 500, contentType: 'text/html', text: '<h1>Error</h1>' }, FIELD_FAILED, ITEM_FAILED],
    ['a 200 that is not JSON', { text: 'ok' }, FIELD_FAILED, ITEM_FAILED],
    ['JSON served as text/plain', { contentType: 'text/plain', text: '{"ok":true}' }, '{"ok":true}', '{"ok":true}'],
    ['ok true with status 500', { status: 500, json: { ok: true } }, '{"ok":true}', '{"ok":true}'],
    ['a dropped connection', { drop: true }, FIELD_FAILED, ITEM_FAILED],
    ['a connection reset in the middle of the answer', { reset: true }, FIELD_FAILED, ITEM_FAILED],
    [
      'a 50 MB answer (read no further than the 1 MiB limit)',
      { contentType: 'application/json', text: Buffer.alloc(50 * 1024 * 1024, 0x20) },
      FIELD_FAILED,
      ITEM_FAILED,
    ],
    [
      'invalid UTF-8 in the error message',
      {
        contentType: 'application/json',
        text: Buffer.concat([Buffer.from('{"ok":false,"error":{"message":"a'), Buffer.from([0xff]), Buffer.from('b"}}')]),
      },
      '{"ok":false,"msg":"a\uFFFDb"}',
      '{"ok":false,"msg":"a\uFFFDb"}',
    ],
    ['no answer before the timeout', { hang: true }, FIELD_FAILED, ITEM_FAILED],
  ])('%s', async (_, answer, fieldReply, itemReply) => {
    svc.stub.answer(answer);
    const before = (await svc.rows()).length;
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '50', field: 'f' }), { cookie }), 200, fieldReply);
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '51', delete: '' }), { cookie }), 200, itemReply);
    expect(svc.stub.received).toHaveLength(2);
    expect(await newRows(before)).toHaveLength(fieldReply === '{"ok":true}' ? 2 : 0);
  });
});

describe('activity log rows', () => {
  it.each<[string, string | undefined]>([
    ['12abc', '12'],
    [' 15', '15'],
    ['1e3', '1000'],
    ['12.9', '12'],
    ['-5', undefined],
    ['0x1A', undefined],
    ['abc', undefined],
    ['', undefined],
  ])('id %j is forwarded as received and logged as %s', async (id, entityId) => {
    const before = (await svc.rows()).length;
    await svc.post(FIELD_PATH, form({ id, field: 'estado', value: 'x' }), { cookie });
    expect(sent()).toEqual([{ id, field: 'estado', value: 'x' }]);
    const rows = await newRows(before);
    if (entityId === undefined) {
      expect(rows).toHaveLength(0);
      return;
    }
    expect(rows).toEqual([
      {
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
        module: 'Cotizaciones',
        event_key: 'cotizaciones.update',
        description: `Actualizó la cotización #${entityId}`,
        entity_type: 'cotizacion',
        entity_id: entityId,
        details: '{"field":"estado"}',
        user_id: '7',
        request_id: expect.any(String) as unknown,
        client_ip: '127.0.0.1',
        user_agent: expect.any(String) as unknown,
      },
    ]);
  });

  it('writes one server-log line per request with what happened', async () => {
    const response = await svc.post(FIELD_PATH, form({ id: '61' }), { cookie });
    const lines = svc.logs.lines.filter((line) => line.requestId === response.headers.get('x-request-id'));
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request',
        method: 'POST',
        path: FIELD_PATH,
        status: 200,
        durationMs: expect.any(Number) as unknown,
        userId: '7',
        outcome: 'ok',
      }),
    ]);
  });

  it('records the request id it echoes back: its own for a caller that is no trusted proxy (trusted-proxies.http.test.ts has one that is)', async () => {
    const before = (await svc.rows()).length;
    const response = await svc.post(FIELD_PATH, form({ id: '60' }), { cookie, headers: { 'x-request-id': 'trace-abc-123' } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await newRows(before))[0]?.request_id).toBe(response.headers.get('x-request-id'));
  });
});
