import { refusalMessage } from './answers.js';

/** A request refused at the protocol level, before or while its use case runs; its message is the answer module's. */
export class Rejection extends Error {
  override readonly name = 'Rejection';
  /** Headers the answer carries besides the contract's (405's `Allow`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: 400 | 403 | 404 | 405 | 413,
    options?: { cause?: unknown; headers?: Readonly<Record<string, string>> },
  ) {
    super(refusalMessage(status), options);
    this.headers = options?.headers ?? {};
  }
}

export const REJECTIONS = {
  methodNotAllowed: (allow: string) => new Rejection(405, { headers: { Allow: allow } }),
  tooLarge: (cause?: unknown) => new Rejection(413, { cause }),
  malformed: (cause?: unknown) => new Rejection(400, { cause }),
  notFound: () => new Rejection(404),
  crossSite: () => new Rejection(403),
} as const;
