import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_PATH, ITEM_PATH, form, startService, type TestService } from './support/service.js';

// Browsers must not guess a type for any answer (a JSON or text body read as HTML or script).
describe('X-Content-Type-Options: nosniff on every answer', () => {
  let svc: TestService;
  let cookie: string;
  beforeAll(async () => {
    svc = await startService({ METRICS_TOKEN: 'metrics-token-0123456789' });
    cookie = await svc.signIn();
  });
  afterAll(() => svc.close());

  it.each<[string, string, RequestInit | (() => RequestInit)]>([
    ['GET', '/healthz', {}],
    ['GET', '/readyz', {}],
    ['GET', '/metrics', {}],
    ['GET', '/metrics (authorized)', { headers: { authorization: 'Bearer metrics-token-0123456789' } }],
    ['GET', '/openapi.json', {}],
    ['GET', '/dev/activity', {}],
    ['POST', '/dev/login', { body: form({ id: '9' }) }],
    ['POST', '/dev/logout', {}],
    ['GET', '/no/such/route', {}],
    ['GET', FIELD_PATH, {}],
    ['POST', FIELD_PATH, { body: form({ id: '1' }) }],
    ['POST', ITEM_PATH, () => ({ body: form({ id: '2', delete: '' }), headers: { cookie } })],
    ['POST', ITEM_PATH, { body: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
  ])('%s %s', async (method, route, init) => {
    const path = route.split(' ')[0]!;
    const response = await fetch(`${svc.url}${path}`, { method, ...(typeof init === 'function' ? init() : init) });
    await response.arrayBuffer();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
