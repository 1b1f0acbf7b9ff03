import { UpstreamError } from '@cotizaciones/core';

/** The upstream's body is JSON whatever its status or content type; anything else is unusable. */
export function parseUpstreamBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError('invalid-body', `upstream body is not JSON (${text.length} chars)`);
  }
}

export function tooLarge(maxBytes: number): UpstreamError {
  return new UpstreamError('invalid-body', `upstream answer larger than ${maxBytes} bytes`);
}
