import type { UseCaseDeps } from './change-request.js';
import { changeUseCase } from './change-use-case.js';
import { MESSAGES } from './reply.js';

export const UPDATE_QUOTATION_PATH = '/api/cotizaciones/update';

/** Operation A: change one field of a quotation, or (`benef_emp`) its beneficiary company and user. */
export function updateQuotationField(deps: UseCaseDeps) {
  return changeUseCase(deps, {
    params: ['id', 'field', 'value', 'idEmpresa', 'idUsuario'],
    path: UPDATE_QUOTATION_PATH,
    defaultMsg: MESSAGES.quotationFailed,
    // Ids are forwarded as received (the integer 0 when absent); the upstream owns their validation.
    payload: ({ id = 0, field = '', value = '', idEmpresa = 0, idUsuario = 0 }) =>
      field === 'benef_emp' ? { id, field, idEmpresa, idUsuario } : { id, field, value },
    audit: ({ field = '' }, entityId) => ({
      eventKey: 'cotizaciones.update',
      description: `Actualizó la cotización #${entityId}`,
      entityType: 'cotizacion',
      details: { field },
    }),
  });
}
