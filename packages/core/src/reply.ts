/** The JSON body both endpoints answer: `{"ok":true}` or `{"ok":false,"msg":"…"}`. */
export type Reply = { readonly ok: true } | { readonly ok: false; readonly msg: string };

export const MESSAGES = {
  notAuthenticated: 'No autenticado',
  invalidParams: 'Parámetros inválidos.',
  quotationFailed: 'No se pudo actualizar la cotización.',
  itemFailed: 'No se pudo actualizar el ítem.',
} as const;

export const OK: Reply = Object.freeze({ ok: true });

export function failure(msg: string): Reply {
  return { ok: false, msg };
}
