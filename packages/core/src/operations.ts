import type { AuditEvent } from './audit.js';
import type { UpstreamPayload } from './ports/upstream.js';
import { MESSAGES } from './reply.js';

/** The parameters an operation reads: each a string, or undefined when absent. */
export type Params<N extends string> = { readonly [K in N]: string | undefined };

/**
 * One change operation, once: every channel derives from it what it shows of the operation (the web
 * route, the OpenAPI document, the metric label, the bulk file's columns), and the use case is built
 * from it (`useCases`). Adding an operation is one entry here, and its tests (docs/recipes.md).
 */
export interface Operation<N extends string = string> {
  /** The stable name: metric label, log field, OpenAPI operation id. */
  readonly name: string;
  /** What a bulk file's `operation` column calls it. */
  readonly lineName: string;
  readonly summary: string;
  /** The PHP path the browser front end calls (below BASE_PATH), kept for a drop-in replacement. */
  readonly webPath: string;
  readonly upstreamPath: string;
  /** The failure message when the upstream gives none. */
  readonly defaultMsg: string;
  /** Every parameter it reads, with what it means; any of them in array form is refused. */
  readonly params: { readonly [K in N]: string };
  payload(params: Params<N>): UpstreamPayload;
  audit(params: Params<N>, entityId: bigint): Omit<AuditEvent, 'entityId'>;
}

/** Operation A: change one field of a quotation, or (`benef_emp`) its beneficiary company and user. */
export const UPDATE_QUOTATION_FIELD: Operation<'id' | 'field' | 'value' | 'idEmpresa' | 'idUsuario'> = {
  name: 'update_cotizacion',
  lineName: 'quotation',
  summary: 'Change one field of a quotation',
  webPath: '/cotizaciones/api/update_cotizacion_api.php',
  upstreamPath: '/api/cotizaciones/update',
  defaultMsg: MESSAGES.quotationFailed,
  params: {
    id: 'Quotation id, forwarded as received (0 when absent).',
    field: 'Field to change; "benef_emp" sets the beneficiary company and user instead of value.',
    value: 'New value (not sent upstream for benef_emp).',
    idEmpresa: 'Company id, only for benef_emp.',
    idUsuario: 'User id, only for benef_emp.',
  },
  // Ids are forwarded as received (the integer 0 when absent); the upstream owns their validation.
  payload: ({ id = 0, field = '', value = '', idEmpresa = 0, idUsuario = 0 }) =>
    field === 'benef_emp' ? { id, field, idEmpresa, idUsuario } : { id, field, value },
  audit: ({ field = '' }, entityId) => ({
    eventKey: 'cotizaciones.update',
    description: `Actualizó la cotización #${entityId}`,
    entityType: 'cotizacion',
    details: { field },
  }),
};

/** Operation B: change one field of a quotation line item, or delete the item when `delete` is present. */
export const UPDATE_QUOTATION_ITEM: Operation<'id' | 'delete' | 'field' | 'value'> = {
  name: 'update_cot_item',
  lineName: 'item',
  summary: 'Change one field of a quotation item, or delete it',
  webPath: '/cotizaciones/api/update_cot_item.php',
  upstreamPath: '/api/cotizaciones/items/update',
  defaultMsg: MESSAGES.itemFailed,
  params: {
    id: 'Item (detalle) id, forwarded as received (0 when absent).',
    delete: 'Present with any value (even empty or "0"): delete the item.',
    field: 'Field to change (when not deleting).',
    value: 'New value (when not deleting).',
  },
  // PHP's isset(): `delete` present with any value, even empty or "0".
  payload: ({ id = 0, delete: del, field = '', value = '' }) => (del !== undefined ? { id, delete: 1 } : { id, field, value }),
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
};

/** Every operation, in the order channels list them. */
export const OPERATIONS: readonly Operation[] = [UPDATE_QUOTATION_FIELD, UPDATE_QUOTATION_ITEM];

/** The names of the parameters an operation reads. */
export function paramNames<N extends string>(operation: Operation<N>): N[] {
  return Object.keys(operation.params) as N[];
}
