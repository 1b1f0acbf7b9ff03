import type { Operation } from '../operations.js';

/**
 * An operation that is not in the catalog: tests add it to `OPERATIONS` to prove that a channel
 * serves a new entry with nothing else written (docs/recipes.md, "Add an operation").
 */
export const ARCHIVE_QUOTATION: Operation<'id' | 'reason'> = {
  name: 'archive_cotizacion',
  lineName: 'archive',
  summary: 'Archive a quotation',
  webPath: '/cotizaciones/api/archive_cotizacion.php',
  upstreamPath: '/api/cotizaciones/archive',
  defaultMsg: 'No se pudo archivar la cotización.',
  params: { id: 'Quotation id.', reason: 'Why it is archived.' },
  payload: ({ id = 0, reason = '' }) => ({ id, reason }),
  audit: ({ reason = '' }, entityId) => ({
    eventKey: 'cotizaciones.archive',
    description: `Archivó la cotización #${entityId}`,
    entityType: 'cotizacion',
    details: { reason },
  }),
};
