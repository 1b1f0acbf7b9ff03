import type { RequestMiddleware } from './request-state.js';

/** Every answer, JSON or not, is to be read as the type it declares, never sniffed by a browser. */
export const noSniff: RequestMiddleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  await next();
};
