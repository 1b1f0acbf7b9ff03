import { closeAfterAnswer } from './answers.js';
import { lingerOnClose } from './linger-close.js';
import type { RequestContext } from './request-state.js';

/**
 * An answer given before the request's body has all arrived (no session, a
 * refusal, a body over the limit) closes the connection instead of leaving
 * Node to drain a body nobody will use on a keep-alive connection: with
 * `Connection: close`, Node ends the socket once the answer is flushed (a
 * lingering close, so a client still sending gets the answer). A 413 always
 * closes: its body was refused, however much of it had arrived.
 */
export function closeUnreadBody(ctx: RequestContext): void {
  if (!ctx.req.complete || ctx.status === 413) {
    closeAfterAnswer(ctx);
    lingerOnClose(ctx.req.socket);
  }
}
