import { describe, expect, it, vi } from 'vitest';
import { phpFormParams, SessionUnavailableError, TokenUnavailableError, UpstreamError } from '../../src/index.js';
import { inMemorySession } from '../../src/testing/index.js';
import { failingTokens, harness, NOW, refreshableTokens } from './harness.js';

const PATH = '/api/cotizaciones/update';

describe('update quotation field (operation A)', () => {
  describe('payload sent to the upstream', () => {
    it.each<[string, Array<[string, string]>, Record<string, unknown>]>([
      ['all defaults when nothing is sent', [], { id: 0, field: '', value: '' }],
      [
        'id, field and value as received',
        [
          ['id', '12'],
          ['field', 'estado'],
          ['value', 'aprobada'],
        ],
        { id: '12', field: 'estado', value: 'aprobada' },
      ],
      [
        'ids forwarded verbatim, never cast',
        [
          ['id', ' 12abc'],
          ['field', 'x'],
        ],
        { id: ' 12abc', field: 'x', value: '' },
      ],
      [
        'benef_emp: idEmpresa and idUsuario, never value',
        [
          ['id', '5'],
          ['field', 'benef_emp'],
          ['value', 'ignored'],
          ['idEmpresa', '3'],
          ['idUsuario', '9'],
        ],
        { id: '5', field: 'benef_emp', idEmpresa: '3', idUsuario: '9' },
      ],
      [
        'benef_emp defaults idEmpresa and idUsuario to integer 0',
        [
          ['id', '5'],
          ['field', 'benef_emp'],
        ],
        { id: '5', field: 'benef_emp', idEmpresa: 0, idUsuario: 0 },
      ],
      [
        'any other field: value, never idEmpresa/idUsuario',
        [
          ['id', '5'],
          ['field', 'total'],
          ['value', '10'],
          ['idEmpresa', '3'],
          ['idUsuario', '9'],
        ],
        { id: '5', field: 'total', value: '10' },
      ],
      [
        'benef_emp is case-sensitive',
        [
          ['field', 'BENEF_EMP'],
          ['idEmpresa', '3'],
        ],
        { id: 0, field: 'BENEF_EMP', value: '' },
      ],
      [
        'the last of repeated names wins',
        [
          ['id', '1'],
          ['id', '2'],
          ['field', 'a'],
          ['field', 'b'],
        ],
        { id: '2', field: 'b', value: '' },
      ],
      [
        'unused bracketed names are ignored',
        [
          ['id', '7'],
          ['other[]', 'x'],
          ['meta[a]', 'y'],
        ],
        { id: '7', field: '', value: '' },
      ],
    ])('%s', async (_, pairs, payload) => {
      const h = harness();
      await h.field(pairs);
      expect(h.upstream.calls).toHaveLength(1);
      expect(h.upstream.calls[0]).toEqual({ path: PATH, payload, token: 'secret-token', idempotencyKey: 'key-1' });
      expect(Object.keys(h.upstream.calls[0]?.payload ?? {})).toEqual(Object.keys(payload));
    });
  });

  describe('reply from the upstream answer', () => {
    it.each<[string, unknown, unknown]>([
      ['ok true', { ok: true }, { ok: true }],
      ['ok "true" is not true', { ok: 'true' }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['ok 1 is not true', { ok: 1 }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['ok missing', {}, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['error.message passed through', { ok: false, error: { message: 'Campo no editable' } }, { ok: false, msg: 'Campo no editable' }],
      ['error.message with ok missing', { error: { message: 'Sin permiso' } }, { ok: false, msg: 'Sin permiso' }],
      ['empty error.message', { ok: false, error: { message: '' } }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['non-string error.message', { ok: false, error: { message: 42 } }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['error not an object', { ok: false, error: 'boom' }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['error an array', { ok: false, error: ['boom'] }, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['body an array', [{ ok: true }], { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['body a string', 'ok', { ok: false, msg: 'No se pudo actualizar la cotización.' }],
      ['body null', null, { ok: false, msg: 'No se pudo actualizar la cotización.' }],
    ])('%s', async (_, body, reply) => {
      const h = harness();
      h.upstream.respondWith(() => ({ json: body }));
      const outcome = await h.field([['id', '1']]);
      expect(outcome.reply).toEqual(reply);
    });

    it('uses the body even on an error status', async () => {
      const h = harness();
      h.upstream.respondWith(() => ({ status: 500, json: { ok: true } }));
      expect((await h.field([['id', '1']])).reply).toEqual({ ok: true });
    });

    it('answers the default message when the upstream fails, with the cause for the server log', async () => {
      const h = harness();
      h.upstream.respondWith(() => {
        throw new Error('reset');
      });
      const outcome = await h.field([['id', '1']]);
      expect(outcome.reply).toEqual({ ok: false, msg: 'No se pudo actualizar la cotización.' });
      expect(outcome.kind).toBe('upstream-failed');
      expect(outcome.cause).toBeInstanceOf(UpstreamError);
      expect(h.activityLog.entries).toHaveLength(0);
    });
  });

  describe('session', () => {
    it.each([
      ['no user', null],
      ['an empty user', {}],
      ['a user without id', { name: 'x' }],
    ])('answers "No autenticado" for %s, and nothing else happens', async (_, user) => {
      const h = harness();
      const outcome = await h.field(
        [
          ['id', '12'],
          ['field', 'x'],
        ],
        user,
      );
      expect(outcome).toEqual({ reply: { ok: false, msg: 'No autenticado' }, kind: 'not-authenticated' });
      expect(h.upstream.calls).toHaveLength(0);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('asks for the parameters only once the user is known to be signed in', async () => {
      const h = harness();
      let reads = 0;
      const params = () => (
        (reads += 1),
        Promise.resolve(
          phpFormParams([
            ['id', '12'],
            ['field', 'x'],
          ]),
        )
      );
      expect((await h.useCases.field({ session: inMemorySession(null), params, idempotencyKey: 'k' })).kind).toBe('not-authenticated');
      expect(reads).toBe(0);
      expect((await h.useCases.field({ session: inMemorySession({ id: 7 }), params, idempotencyKey: 'k' })).kind).toBe('ok');
      expect(reads).toBe(1);
    });

    it('answers an unreachable session store as an outcome with its code, not a throw; nothing is read, sent or logged', async () => {
      const h = harness();
      const down = new SessionUnavailableError('the session store (Redis) is unreachable');
      let reads = 0;
      const outcome = await h.useCases.field({
        session: { currentUser: () => Promise.reject(down) },
        params: () => ((reads += 1), Promise.resolve(new Map())),
        idempotencyKey: 'k',
      });
      expect(outcome).toEqual({ reply: { ok: false, msg: 'Servicio no disponible.' }, kind: 'session-unavailable', cause: down });
      expect(outcome.cause).toMatchObject({ code: 'SESSION_UNAVAILABLE' });
      expect([reads, h.upstream.calls.length, h.activityLog.entries.length]).toEqual([0, 0, 0]);
      // Anything else a session throws is a bug, not an outcome: it is not swallowed.
      await expect(
        h.useCases.field({ session: { currentUser: () => Promise.reject(new TypeError('bug')) }, params: new Map(), idempotencyKey: 'k' }),
      ).rejects.toThrow('bug');
    });
  });

  describe('array-form parameters', () => {
    it.each(['id[]', 'field[]', 'value[a]', 'idEmpresa[]', 'idUsuario[x][y]'])('rejects %s without calling the upstream', async (name) => {
      const h = harness();
      const outcome = await h.field([
        ['id', '1'],
        [name, '2'],
      ]);
      expect(outcome.reply).toEqual({ ok: false, msg: 'Parámetros inválidos.' });
      expect(h.upstream.calls).toHaveLength(0);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('accepts a plain value sent after the array form (PHP keeps the last)', async () => {
      const h = harness();
      expect(
        (
          await h.field([
            ['id[]', '1'],
            ['id', '2'],
          ])
        ).reply,
      ).toEqual({ ok: true });
    });
  });

  describe('activity log', () => {
    it('records the change with every contract field', async () => {
      const h = harness();
      await h.field([
        ['id', '12'],
        ['field', 'estado'],
        ['value', 'x'],
      ]);
      expect(h.activityLog.entries).toEqual([
        {
          createdAt: NOW,
          module: 'Cotizaciones',
          eventKey: 'cotizaciones.update',
          description: 'Actualizó la cotización #12',
          entityType: 'cotizacion',
          entityId: 12n,
          details: { field: 'estado' },
          userId: '42',
          requestId: 'req-1',
          clientIp: '10.0.0.1',
          userAgent: 'test',
        },
      ]);
    });

    it.each<[string, bigint | undefined]>([
      ['12abc', 12n],
      [' 15', 15n],
      ['1e3', 1000n],
      ['12.9', 12n],
      ['-5', undefined],
      ['0x1A', undefined],
      ['abc', undefined],
      ['', undefined],
      ['0', undefined],
      ['9999999999999999999', 9223372036854775807n],
    ])('id %j: entity id %s', async (id, entityId) => {
      const h = harness();
      await h.field([
        ['id', id],
        ['field', 'f'],
      ]);
      expect(h.activityLog.entries.map((entry) => entry.entityId)).toEqual(entityId === undefined ? [] : [entityId]);
      if (entityId !== undefined) expect(h.activityLog.entries[0]?.description).toBe(`Actualizó la cotización #${entityId}`);
    });

    it('records nothing when id is absent', async () => {
      const h = harness();
      await h.field([['field', 'f']]);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('records nothing when the upstream refuses', async () => {
      const h = harness();
      h.upstream.respondWith(() => ({ json: { ok: false } }));
      await h.field([['id', '12']]);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('answers only once a log that keeps its entries first (a spool) has kept the entry', async () => {
      const h = harness();
      let keep!: () => void;
      h.activityLog.record = () => new Promise<void>((resolve) => (keep = resolve));
      let answered = false;
      const outcome = h.field([['id', '12']]).then((result) => ((answered = true), result));
      await vi.waitFor(() => expect(keep).toBeTypeOf('function'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      keep();
      expect((await outcome).reply).toEqual({ ok: true });
    });

    it('keeps the reply when recording throws, and hands the cause to the caller', async () => {
      const h = harness();
      h.activityLog.record = () => {
        throw new Error('log broken');
      };
      const outcome = await h.field([['id', '12']]);
      expect(outcome.reply).toEqual({ ok: true });
      expect(outcome.cause?.message).toBe('log broken');
    });
  });

  describe('upstream token', () => {
    it('answers the default message without calling the upstream when no token can be had', async () => {
      const h = harness({ tokens: failingTokens });
      const outcome = await h.field([['id', '12']]);
      expect(outcome.reply).toEqual({ ok: false, msg: 'No se pudo actualizar la cotización.' });
      expect(outcome.kind).toBe('token-unavailable');
      expect(outcome.cause).toBeInstanceOf(TokenUnavailableError);
      expect(h.upstream.calls).toHaveLength(0);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('after a 401, refreshes the token and resends exactly once, with the same idempotency key (the same change)', async () => {
      const tokens = refreshableTokens();
      const h = harness({ tokens: tokens.source });
      h.upstream.respondWith(({ token }) => (token === 'tok-2' ? { json: { ok: true } } : { status: 401, json: { ok: false } }));
      const outcome = await h.field([['id', '12']]);
      expect(outcome.reply).toEqual({ ok: true });
      expect(h.upstream.calls.map((call) => [call.token, call.idempotencyKey])).toEqual([
        ['tok-1', 'key-1'],
        ['tok-2', 'key-1'],
      ]);
      expect(tokens.refreshes).toEqual(['tok-1']);
      expect(h.activityLog.entries).toHaveLength(1);
    });

    it('never resends more than once, however many 401s', async () => {
      const tokens = refreshableTokens();
      const h = harness({ tokens: tokens.source });
      h.upstream.respondWith(() => ({ status: 401, json: { ok: false, error: { message: 'Token vencido' } } }));
      const outcome = await h.field([['id', '12']]);
      expect(outcome.reply).toEqual({ ok: false, msg: 'Token vencido' });
      expect(h.upstream.calls).toHaveLength(2);
    });

    it('a 401 that stays without a JSON body is a failure whose cause says the token was refused, not a refusal of the change', async () => {
      const tokens = refreshableTokens();
      const h = harness({ tokens: tokens.source });
      h.upstream.respondWith(() => ({ status: 401, text: '' }));
      const outcome = await h.field([['id', '12']]);
      expect(outcome.reply).toEqual({ ok: false, msg: 'No se pudo actualizar la cotización.' });
      // Its own kind: the change was not applied (an upstream-failed change may have been).
      expect(outcome.kind).toBe('token-rejected');
      expect(outcome.cause).toMatchObject({ code: 'TOKEN_REJECTED', message: 'the upstream refused the token (401)' });
      expect(h.upstream.calls).toHaveLength(2);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('does not resend after a 401 when the source cannot refresh', async () => {
      const h = harness();
      h.upstream.respondWith(() => ({ status: 401, json: { ok: false } }));
      await h.field([['id', '12']]);
      expect(h.upstream.calls).toHaveLength(1);
    });

    it('does not resend when the refresh yields no token', async () => {
      const h = harness({
        tokens: { token: () => Promise.resolve('a'), refresh: () => Promise.resolve(undefined) },
      });
      h.upstream.respondWith(() => ({ status: 401, json: { ok: false } }));
      await h.field([['id', '12']]);
      expect(h.upstream.calls).toHaveLength(1);
    });

    it('never resends a POST after other failures', async () => {
      const tokens = refreshableTokens();
      const h = harness({ tokens: tokens.source });
      h.upstream.respondWith(() => ({ status: 503, json: { ok: false } }));
      await h.field([['id', '12']]);
      expect(h.upstream.calls).toHaveLength(1);
      expect(tokens.refreshes).toHaveLength(0);
    });
  });
});
