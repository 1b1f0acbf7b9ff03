import { OK, failure, type Reply } from './reply.js';

/** `{"ok":true}` only for a JSON object whose `ok` is strictly `true`; else the upstream's own message, if it gave one. */
export function replyFromUpstream(body: unknown, defaultMsg: string): Reply {
  if (!isObject(body)) return failure(defaultMsg);
  if (body.ok === true) return OK;
  const error = body.error;
  const message = isObject(error) ? error.message : undefined;
  return failure(typeof message === 'string' && message !== '' ? message : defaultMsg);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
