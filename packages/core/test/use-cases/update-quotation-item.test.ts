import { describe, expect, it } from 'vitest';
import { failingTokens, harness, NOW } from './harness.js';

const PATH = '/api/cotizaciones/items/update';
const DEFAULT_MSG = 'No se pudo actualizar el ítem.';

describe('update or delete quotation item (operation B)', () => {
  describe('payload sent to the upstream', () => {
    it.each<[string, Array<[string, string]>, Record<string, unknown>]>([
      ['all defaults when nothing is sent', [], { id: 0, field: '', value: '' }],
      [
        'update: id, field and value',
        [
          ['id', '8'],
          ['field', 'cantidad'],
          ['value', '3'],
        ],
        { id: '8', field: 'cantidad', value: '3' },
      ],
      [
        'delete with a value',
        [
          ['id', '8'],
          ['delete', '1'],
          ['field', 'x'],
          ['value', 'y'],
        ],
        { id: '8', delete: 1 },
      ],
      [
        'delete empty',
        [
          ['id', '8'],
          ['delete', ''],
        ],
        { id: '8', delete: 1 },
      ],
      [
        'delete "0" still deletes',
        [
          ['id', '8'],
          ['delete', '0'],
        ],
        { id: '8', delete: 1 },
      ],
      ['delete with no id', [['delete', 'x']], { id: 0, delete: 1 }],
      [
        'a delete sent before other fields',
        [
          ['delete', ''],
          ['id', '8'],
          ['field', 'x'],
        ],
        { id: '8', delete: 1 },
      ],
    ])('%s', async (_, pairs, payload) => {
      const h = harness();
      await h.item(pairs);
      expect(h.upstream.calls).toEqual([{ path: PATH, payload, token: 'secret-token', idempotencyKey: 'key-1' }]);
      expect(Object.keys(h.upstream.calls[0]?.payload ?? {})).toEqual(Object.keys(payload));
    });
  });

  it.each<[string, unknown, unknown]>([
    ['ok true', { ok: true }, { ok: true }],
    ['ok "true"', { ok: 'true' }, { ok: false, msg: DEFAULT_MSG }],
    ['ok missing', {}, { ok: false, msg: DEFAULT_MSG }],
    ['error.message', { ok: false, error: { message: 'Ítem bloqueado' } }, { ok: false, msg: 'Ítem bloqueado' }],
    ['empty error.message', { error: { message: '' } }, { ok: false, msg: DEFAULT_MSG }],
  ])('replies for upstream %s', async (_, body, reply) => {
    const h = harness();
    h.upstream.respondWith(() => ({ json: body }));
    expect((await h.item([['id', '8']])).reply).toEqual(reply);
  });

  it('answers "No autenticado" without a session, and nothing else happens', async () => {
    const h = harness();
    expect(
      (
        await h.item(
          [
            ['id', '8'],
            ['delete', ''],
          ],
          null,
        )
      ).reply,
    ).toEqual({ ok: false, msg: 'No autenticado' });
    expect(h.upstream.calls).toHaveLength(0);
    expect(h.activityLog.entries).toHaveLength(0);
  });

  it.each(['id[]', 'delete[]', 'field[x]', 'value[]'])('rejects %s as invalid parameters', async (name) => {
    const h = harness();
    expect((await h.item([[name, '1']])).reply).toEqual({ ok: false, msg: 'Parámetros inválidos.' });
    expect(h.upstream.calls).toHaveLength(0);
  });

  it('answers its own default message when no token can be had', async () => {
    const h = harness({ tokens: failingTokens });
    expect((await h.item([['id', '8']])).reply).toEqual({ ok: false, msg: DEFAULT_MSG });
    expect(h.upstream.calls).toHaveLength(0);
  });

  describe('activity log', () => {
    it('records an update', async () => {
      const h = harness();
      await h.item([
        ['id', '8'],
        ['field', 'cantidad'],
        ['value', '3'],
      ]);
      expect(h.activityLog.entries).toEqual([
        expect.objectContaining({
          createdAt: NOW,
          module: 'Cotizaciones',
          eventKey: 'cotizaciones.item_update',
          description: 'Actualizó ítem (detalle #8)',
          entityType: 'cotizacion_item',
          entityId: 8n,
          details: { field: 'cantidad' },
          userId: '42',
        }),
      ]);
    });

    it('records a delete with null details', async () => {
      const h = harness();
      await h.item([
        ['id', '8abc'],
        ['delete', ''],
      ]);
      expect(h.activityLog.entries).toEqual([
        expect.objectContaining({
          eventKey: 'cotizaciones.item_delete',
          description: 'Eliminó ítem (detalle #8)',
          entityType: 'cotizacion_item',
          entityId: 8n,
          details: null,
        }),
      ]);
    });

    it.each(['0', '-3', 'abc', ''])('records nothing for id %j', async (id) => {
      const h = harness();
      await h.item([
        ['id', id],
        ['delete', ''],
      ]);
      expect(h.upstream.calls).toHaveLength(1);
      expect(h.activityLog.entries).toHaveLength(0);
    });

    it('records nothing when the upstream refuses', async () => {
      const h = harness();
      h.upstream.respondWith(() => ({ json: { ok: false } }));
      await h.item([
        ['id', '8'],
        ['delete', ''],
      ]);
      expect(h.activityLog.entries).toHaveLength(0);
    });
  });
});
