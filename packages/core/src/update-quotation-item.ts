import { auditChange } from './audit.js';
import type { ChangeRequest, UseCaseDeps } from './change-request.js';
import { readStrings } from './form-params.js';
import { forwardChange } from './forward-change.js';
import type { Outcome } from './outcome.js';
import { phpIntCast } from './php-int.js';
import { MESSAGES, failure } from './reply.js';
import type { UpstreamPayload } from './ports/upstream.js';

export const UPDATE_ITEM_PATH = '/api/cotizaciones/items/update';
const PARAMS = ['id', 'delete', 'field', 'value'] as const;

/** Operation B: change one field of a quotation line item, or delete the item when `delete` is present. */
export function updateQuotationItem(deps: UseCaseDeps) {
  return async (request: ChangeRequest): Promise<Outcome> => {
    const user = await request.session.currentUser();
    if (!user) return { reply: failure(MESSAGES.notAuthenticated), kind: 'not-authenticated' };

    const read = readStrings(request.params, PARAMS);
    if (!read.ok) return { reply: failure(MESSAGES.invalidParams), kind: 'invalid-params' };
    const { id, field = '', value = '' } = read.values;
    // PHP's isset(): present with any value, even empty or "0".
    const isDelete = read.values.delete !== undefined;

    const payload: UpstreamPayload = isDelete
      ? { id: id ?? 0, delete: 1 }
      : { id: id ?? 0, field, value };

    const outcome = await forwardChange(deps, {
      path: UPDATE_ITEM_PATH,
      payload,
      user,
      defaultMsg: MESSAGES.itemFailed,
    });

    const entityId = phpIntCast(id ?? '');
    return auditChange(deps, request, user, outcome, {
      eventKey: isDelete ? 'cotizaciones.item_delete' : 'cotizaciones.item_update',
      description: `${isDelete ? 'Eliminó' : 'Actualizó'} ítem (detalle #${entityId})`,
      entityType: 'cotizacion_item',
      entityId,
      details: isDelete ? null : { field },
    });
  };
}
