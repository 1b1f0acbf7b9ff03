/** A request refused at the protocol level, before any use case runs. */
export class Rejection extends Error {
  override readonly name = 'Rejection';
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 413 | 503,
    readonly msg: string,
    options?: { cause?: unknown },
  ) {
    super(msg, options);
  }
}

export const REJECTIONS = {
  methodNotAllowed: () => new Rejection(405, 'Método no permitido.'),
  tooLarge: (cause?: unknown) => new Rejection(413, 'Solicitud demasiado grande.', { cause }),
  malformed: (cause?: unknown) => new Rejection(400, 'Solicitud inválida.', { cause }),
  unavailable: (cause?: unknown) => new Rejection(503, 'Servicio no disponible.', { cause }),
  notFound: () => new Rejection(404, 'No encontrado.'),
  crossSite: () => new Rejection(403, 'Origen no permitido.'),
} as const;
