import { expect } from 'vitest';

/** Asserts the headers every endpoint answer carries, exactly. */
export function expectContractHeaders(response: Response): void {
  expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
  expect(response.headers.get('cache-control')).toBe('no-store, no-cache, must-revalidate, max-age=0');
  expect(response.headers.get('pragma')).toBe('no-cache');
  expect(response.headers.get('expires')).toBe('0');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

/** Asserts status, headers and the exact body bytes. */
export async function expectAnswer(response: Response, status: number, body: string): Promise<void> {
  expectContractHeaders(response);
  expect(await response.text()).toBe(body);
  expect(response.status).toBe(status);
}
