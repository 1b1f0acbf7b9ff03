import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, SESSION_KEY, form, signedCookie, startService, type TestService } from './support/service.js';

const temporaryDir = temporaryDirs();
const UNAVAILABLE = '{"ok":false,"msg":"Servicio no disponible."}';

/**
 * A session store that cannot be reached is the use case's outcome, whatever keeps the sessions:
 * the contract's 503, a request log line that names it `session-unavailable` with its cause, and the
 * metrics' documented labels.
 */
describe.each([
  // Nothing listens on port 1: every read of the store fails.
  [
    'Redis records',
    () => ({
      env: { SESSION_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1' },
      cookie: signedCookie('cotizaciones.sid', 'some-session-id', SESSION_KEY),
    }),
  ],
  // A save path that does not exist: PHP's session directory gone.
  [
    'the PHP app’s files',
    () => ({
      env: {
        DEV_LOGIN: '',
        SESSION_STORE: 'php',
        PHP_SESSION_SAVE_PATH: join(temporaryDir('php-gone-'), 'gone'),
        PHP_SESSION_TOUCH: 'none',
      },
      cookie: `PHPSESSID=${'u'.repeat(26)}`,
    }),
  ],
])('a session store outage with %s', (_, setUp) => {
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.close();
  });

  it('answers 503 and writes the outcome `session-unavailable` in the request log line', async () => {
    const { env, cookie } = setUp();
    svc = await startService(env);
    const response = await svc.post(FIELD_PATH, form({ id: '5', field: 'a', value: 'b' }), { cookie });
    const requestId = response.headers.get('x-request-id');
    await expectAnswer(response, 503, UNAVAILABLE);
    expect(svc.stub.received).toHaveLength(0);
    const lines = svc.logs.lines.filter((line) => line.requestId === requestId && line.msg === 'request');
    expect(lines).toEqual([
      expect.objectContaining({
        status: 503,
        outcome: 'session-unavailable',
        cause: expect.objectContaining({ code: 'SESSION_UNAVAILABLE' }) as unknown,
      }),
    ]);
    // The metrics keep their documented labels: the coarser `unavailable`, and the store's own counter by its cause.
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toContain('http_requests_total{endpoint="update_cotizacion",method="POST",outcome="unavailable"} 1');
    expect(metrics).toContain('session_store_errors_total{cause="unreachable"} 1\n');
    expect(metrics).toContain('session_store_errors_total{cause="busy"} 0\n');
    expect(metrics).toContain('session_store_errors_total{cause="locked"} 0\n');
  });
});

describe('the dev routes with Redis records unreachable', () => {
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.close();
  });

  it('a sign-in answers the endpoints’ 503 and writes the same outcome', async () => {
    svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
    const response = await fetch(`${svc.url}/dev/login`, {
      method: 'POST',
      body: new URLSearchParams({ id: '7' }),
      headers: { cookie: signedCookie('cotizaciones.sid', 'some-session-id', SESSION_KEY) },
    });
    await expectAnswer(response, 503, UNAVAILABLE);
    const requestId = response.headers.get('x-request-id');
    expect(svc.logs.lines.filter((line) => line.requestId === requestId && line.msg === 'request')).toEqual([
      expect.objectContaining({ status: 503, outcome: 'session-unavailable' }),
    ]);
  });
});
