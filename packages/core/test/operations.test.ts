import { describe, expect, it } from 'vitest';
import { MESSAGES, OPERATIONS, paramNames, UPDATE_QUOTATION_FIELD, UPDATE_QUOTATION_ITEM } from '../src/index.js';

describe('the operations catalog', () => {
  it("holds the contract's two endpoints: paths, upstream paths and default messages", () => {
    expect(OPERATIONS.map(({ webPath, upstreamPath, defaultMsg }) => ({ webPath, upstreamPath, defaultMsg }))).toEqual([
      {
        webPath: '/cotizaciones/api/update_cotizacion_api.php',
        upstreamPath: '/api/cotizaciones/update',
        defaultMsg: 'No se pudo actualizar la cotización.',
      },
      {
        webPath: '/cotizaciones/api/update_cot_item.php',
        upstreamPath: '/api/cotizaciones/items/update',
        defaultMsg: 'No se pudo actualizar el ítem.',
      },
    ]);
    expect([UPDATE_QUOTATION_FIELD.defaultMsg, UPDATE_QUOTATION_ITEM.defaultMsg]).toEqual([MESSAGES.quotationFailed, MESSAGES.itemFailed]);
  });

  it('reads exactly the parameters the contract lists for each endpoint', () => {
    expect(paramNames(UPDATE_QUOTATION_FIELD).sort()).toEqual(['field', 'id', 'idEmpresa', 'idUsuario', 'value']);
    expect(paramNames(UPDATE_QUOTATION_ITEM).sort()).toEqual(['delete', 'field', 'id', 'value']);
  });

  it('names each operation once for every channel: names, line names and paths are unique, every operation reads id', () => {
    for (const key of ['name', 'lineName', 'webPath', 'upstreamPath'] as const) {
      expect(new Set(OPERATIONS.map((operation) => operation[key])).size, key).toBe(OPERATIONS.length);
    }
    for (const operation of OPERATIONS) {
      expect(paramNames(operation), operation.name).toContain('id');
      for (const description of Object.values(operation.params)) expect(description, operation.name).not.toBe('');
    }
  });
});
