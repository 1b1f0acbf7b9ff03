import { createHmac } from 'node:crypto';

const COOKIE = 'cotizaciones.sid';

/** A signed-in session cookie as koa-session writes it (base64 JSON, HMAC-SHA1 signature). */
export function signedSessionCookie(userId: string, key: string, now = Date.now()): string {
  const maxAge = 8 * 3_600_000;
  const value = Buffer.from(
    JSON.stringify({ user: { id: userId }, signedInAt: now, seenAt: now, _expire: now + maxAge, _maxAge: maxAge }),
  ).toString('base64');
  const sig = createHmac('sha1', key).update(`${COOKIE}=${value}`).digest('base64url');
  return `${COOKIE}=${value}; ${COOKIE}.sig=${sig}`;
}

/** Signs in through the service's /dev/login and returns the Cookie header (works for every session store). */
export async function devLoginCookie(baseUrl: string, userId: string): Promise<string> {
  const response = await fetch(`${baseUrl}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: userId }) });
  if (!response.ok) throw new Error(`/dev/login answered ${response.status}`);
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}
