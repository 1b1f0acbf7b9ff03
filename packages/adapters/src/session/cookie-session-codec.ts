/**
 * A session record as the value of a signed cookie: base64 JSON, koa-session's own format. Given
 * to koa-session explicitly: its defaults are zod-wrapped functions that re-validate on every call.
 */
export const cookieSessionCodec = {
  encode: (record: unknown): string => Buffer.from(JSON.stringify(record)).toString('base64'),
  decode: (cookie: string): unknown => JSON.parse(Buffer.from(cookie, 'base64').toString('utf8')),
};
