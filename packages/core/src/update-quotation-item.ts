import type { UseCaseDeps } from './change-request.js';
import { changeUseCase } from './change-use-case.js';
import { MESSAGES } from './reply.js';

export const UPDATE_ITEM_PATH = '/api/cotizaciones/items/update';

/** Operation B: change one field of a quotation line item, or delete the item when `delete` is present. */
export function updateQuotationItem(deps: UseCaseDeps) {
  // PHP's isset(): `delete` present with any value, even empty or "0".
  return changeUseCase(deps, {
    params: ['id', 'delete', 'field', 'value'],
    path: UPDATE_ITEM_PATH,
    defaultMsg: MESSAGES.itemFailed,
    payload: ({ id = 0, delete: del, field = '', value = '' }) =>
      del !== undefined ? { id, delete: 1 } : { id, field, value },
    audit: ({ delete: del, field = '' }, entityId) =>
      del !== undefined
        ? {
            eventKey: 'cotizaciones.item_delete',
            description: `Eliminó ítem (detalle #${entityId})`,
            entityType: 'cotizacion_item',
            details: null,
          }
        : {
            eventKey: 'cotizaciones.item_update',
            description: `Actualizó ítem (detalle #${entityId})`,
            entityType: 'cotizacion_item',
            details: { field },
          },
  });
}
