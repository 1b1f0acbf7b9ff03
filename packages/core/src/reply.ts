/** The JSON body both endpoints answer: `{"ok":true}` or `{"ok":false,"msg":"…"}`. */
export type Reply = { readonly ok: true } | { readonly ok: false; readonly msg: string };

export const MESSAGES = {
  notAuthenticated: 'No autenticado',
  invalidParams: 'Parámetros inválidos.',
  quotationFailed: 'No se pudo actualizar la cotización.',
  itemFailed: 'No se pudo actualizar el ítem.',
  /** The caller could not be identified (the session store is unreachable); HTTP answers it with 503. */
  unavailable: 'Servicio no disponible.',
} as const;

export const OK: Reply = Object.freeze({ ok: true });

export function failure(msg: string): Reply {
  return { ok: false, msg };
}
