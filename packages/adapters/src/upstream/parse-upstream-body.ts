import { UpstreamError } from '@cotizaciones/core';

/**
 * The upstream's body is JSON whatever its status or content type; anything else is unusable —
 * except on a 401, whose status alone says the token was refused (the change was not applied, so
 * the core may refresh the token and resend): its body, if not JSON, is `undefined`.
 */
export function parseUpstreamBody(text: string, status: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (status === 401) return undefined;
    throw new UpstreamError('invalid-body', `upstream body is not JSON (${text.length} chars)`);
  }
}

export function tooLarge(maxBytes: number): UpstreamError {
  return new UpstreamError('invalid-body', `upstream answer larger than ${maxBytes} bytes`);
}
