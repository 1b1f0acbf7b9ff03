import { auditChange } from './audit.js';
import type { ChangeRequest, UseCaseDeps } from './change-request.js';
import { readStrings } from './form-params.js';
import { forwardChange } from './forward-change.js';
import type { Outcome } from './outcome.js';
import { phpIntCast } from './php-int.js';
import { MESSAGES, failure } from './reply.js';
import type { UpstreamPayload } from './ports/upstream.js';

export const UPDATE_QUOTATION_PATH = '/api/cotizaciones/update';
const PARAMS = ['id', 'field', 'value', 'idEmpresa', 'idUsuario'] as const;

/** Operation A: change one field of a quotation, or (`benef_emp`) its beneficiary company and user. */
export function updateQuotationField(deps: UseCaseDeps) {
  return async (request: ChangeRequest): Promise<Outcome> => {
    const user = await request.session.currentUser();
    if (!user) return { reply: failure(MESSAGES.notAuthenticated), kind: 'not-authenticated' };

    const read = readStrings(request.params, PARAMS);
    if (!read.ok) return { reply: failure(MESSAGES.invalidParams), kind: 'invalid-params' };
    const { id, field = '', value = '', idEmpresa, idUsuario } = read.values;

    // Ids are forwarded as received; the upstream owns their validation.
    const payload: UpstreamPayload =
      field === 'benef_emp'
        ? { id: id ?? 0, field, idEmpresa: idEmpresa ?? 0, idUsuario: idUsuario ?? 0 }
        : { id: id ?? 0, field, value };

    const outcome = await forwardChange(deps, {
      path: UPDATE_QUOTATION_PATH,
      payload,
      user,
      defaultMsg: MESSAGES.quotationFailed,
    });

    const entityId = phpIntCast(id ?? '');
    return auditChange(deps, request, user, outcome, {
      eventKey: 'cotizaciones.update',
      description: `Actualizó la cotización #${entityId}`,
      entityType: 'cotizacion',
      entityId,
      details: { field },
    });
  };
}
