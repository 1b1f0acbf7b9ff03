import { createHash } from 'node:crypto';
import { parseCookie } from 'cookie';

// PHP's id alphabet (session.sid_bits_per_character 4, 5 or 6) and session.sid_length's bounds.
const SESSION_ID = /^[A-Za-z0-9,-]{22,256}$/;

/**
 * The session id from the first cookie named `name`, URL-decoded as PHP does,
 * or undefined when there is none or it is not a PHP session id. Nothing is
 * built from an id that has not passed this check. `cookie` keeps the first
 * cookie of a name and leaves a value it cannot decode as written, which the
 * alphabet then refuses (PHP keeps a bad escape too, and refuses the `%`).
 */
export function sessionIdFromCookies(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const value = parseCookie(header)[name];
  return value !== undefined && SESSION_ID.test(value) ? value : undefined;
}

/** A short, stable hash of a session id for logs: never the id itself. */
export function sessionIdHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 16);
}
