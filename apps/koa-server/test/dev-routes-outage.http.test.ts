import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_PATH, SESSION_KEY, form, signedCookie, startService, type TestService } from './support/service.js';

/** Everything of an answer but what differs per request (its id, its date). */
async function shape(response: Response) {
  const headers = [...response.headers].filter(([name]) => name !== 'x-request-id' && name !== 'date');
  return { status: response.status, headers, body: await response.text() };
}

/**
 * A dev route's session outage takes the endpoints' path from the core's outcome to the answer: the
 * same status, headers and body, the same request-log outcome and cause, the same metric label.
 */
describe('the dev routes with the session store unreachable', () => {
  let svc: TestService;
  const cookie = signedCookie('cotizaciones.sid', 'some-session-id', SESSION_KEY);
  beforeAll(async () => {
    // Nothing listens on port 1: every read of the store fails.
    svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(async () => {
    await svc.close();
  });

  const requestLine = (response: Response) =>
    svc.logs.lines.filter((line) => line.requestId === response.headers.get('x-request-id') && line.msg === 'request');

  it.each([
    ['sign-in', '/dev/login', form({ id: '7' })],
    ['sign-out', '/dev/logout', form({})],
  ])('a %s answers exactly as an endpoint does, and logs the same outcome', async (_, path, body) => {
    const endpoint = await svc.post(FIELD_PATH, form({ id: '5', field: 'a', value: 'b' }), { cookie });
    const dev = await fetch(`${svc.url}${path}`, { method: 'POST', body, headers: { cookie } });
    expect(await shape(dev)).toEqual(await shape(endpoint));
    const [endpointLine] = requestLine(endpoint);
    expect(requestLine(dev)).toEqual([
      expect.objectContaining({
        status: 503,
        outcome: 'session-unavailable',
        cause: endpointLine?.cause,
      }),
    ]);
    expect(endpointLine).toEqual(expect.objectContaining({ outcome: 'session-unavailable' }));
  });
});
