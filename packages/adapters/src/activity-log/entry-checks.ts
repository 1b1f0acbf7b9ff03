import { isIP } from 'node:net';
import { isInt64, isRequestId, type ActivityEntry } from '@cotizaciones/core';

/**
 * Why an entry read back from a file (the dead-letter file, a captured log) is not one the service
 * could have recorded, or undefined when it passes the service's own checks: the client IP is an IP
 * address or absent (as the request's meta takes it), the request id matches the pattern the service
 * accepts and is present (every entry the service or the CLI records carries one: the replay skips
 * what the store holds by it), and the entity id is a signed 64-bit integer (PHP's `(int)`).
 */
export function entryCheckFailure(entry: ActivityEntry): string | undefined {
  if (entry.clientIp !== undefined && isIP(entry.clientIp) === 0) return 'client IP is not an IP address';
  if (entry.requestId === undefined || !isRequestId(entry.requestId)) return "request id missing or not of the service's pattern";
  if (!isInt64(entry.entityId)) return 'entity id is not a 64-bit integer';
  return undefined;
}
