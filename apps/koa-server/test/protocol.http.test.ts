import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { TokenUnavailableError } from '@cotizaciones/core';
import { expectAnswer, expectContractHeaders } from './support/contract-headers.js';
import { startApp } from './support/app.js';
import { expectIdleSessionAbsent } from './support/idle-session.js';
import {
  cookieHeader,
  FIELD_PATH,
  ITEM_PATH,
  SESSION_KEY,
  TOKEN,
  form,
  signedCookie,
  startService,
  urlencoded,
  type TestService,
} from './support/service.js';

const PATHS = [FIELD_PATH, ITEM_PATH];

describe('requests refused at the protocol level', () => {
  let svc: TestService;
  let cookie: string;
  beforeAll(async () => {
    svc = await startService({ BODY_LIMIT_BYTES: String(64 * 1024) });
    cookie = await svc.signIn();
  });
  afterAll(() => svc.close());

  describe.each(PATHS)('%s', (path) => {
    it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('%s → 405 with Allow: POST', async (method) => {
      const response = await fetch(`${svc.url}${path}`, { method, headers: { cookie } });
      expect(response.headers.get('allow')).toBe('POST');
      await expectAnswer(response, 405, '{"ok":false,"msg":"Método no permitido."}');
    });

    it('HEAD → 405 with Allow: POST and the contract headers', async () => {
      const response = await fetch(`${svc.url}${path}`, { method: 'HEAD' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expectContractHeaders(response);
    });

    it('a body over the limit → 413', async () => {
      const before = svc.stub.received.length;
      await expectAnswer(
        await svc.post(path, form({ id: '1', value: 'x'.repeat(65 * 1024) }), { cookie }),
        413,
        '{"ok":false,"msg":"Solicitud demasiado grande."}',
      );
      expect(svc.stub.received).toHaveLength(before);
    });

    it('more than 1000 urlencoded parameters → 413; exactly 1000 is fine', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
      await expectAnswer(
        await svc.post(path, many(1001), { cookie, headers: urlencoded('').headers }),
        413,
        '{"ok":false,"msg":"Solicitud demasiado grande."}',
      );
      await expectAnswer(await svc.post(path, many(1000), { cookie, headers: urlencoded('').headers }), 200, '{"ok":true}');
    });

    it('more than 1000 multipart parameters → 413', async () => {
      const data = new FormData();
      for (let i = 0; i < 1001; i += 1) data.append(`p${i}`, '1');
      await expectAnswer(await svc.post(path, data, { cookie }), 413, '{"ok":false,"msg":"Solicitud demasiado grande."}');
    });

    it('a multipart body over the limit → 413, even in a file part', async () => {
      const data = new FormData();
      data.append('id', '1');
      data.append('file', new Blob([Buffer.alloc(100 * 1024, 1)]), 'big.bin');
      await expectAnswer(await svc.post(path, data, { cookie }), 413, '{"ok":false,"msg":"Solicitud demasiado grande."}');
    });

    it.each(['deflate', 'gzip', 'bogus'])('a body it cannot decode (Content-Encoding: %s) → 400', async (encoding) => {
      await expectAnswer(
        await svc.post(path, 'id=1', {
          cookie,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding },
        }),
        400,
        '{"ok":false,"msg":"Solicitud inválida."}',
      );
    });

    it('a gzip-compressed form is read', async () => {
      const before = svc.stub.received.length;
      await expectAnswer(
        await svc.post(path, gzipSync('id=1&field=x'), {
          cookie,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        }),
        200,
        '{"ok":true}',
      );
      expect(svc.stub.received).toHaveLength(before + 1);
    });

    it('malformed multipart → 400', async () => {
      await expectAnswer(
        await svc.post(path, 'garbage', { cookie, headers: { 'content-type': 'multipart/form-data; boundary=zz' } }),
        400,
        '{"ok":false,"msg":"Solicitud inválida."}',
      );
    });
  });

  it('writes no uploaded file to disk', async () => {
    const before = new Set(readdirSync(tmpdir()));
    const data = new FormData();
    data.append('id', '1');
    data.append('file', new Blob([Buffer.alloc(10 * 1024, 7)]), 'upload.bin');
    await expectAnswer(await svc.post(FIELD_PATH, data, { cookie }), 200, '{"ok":true}');
    const added = readdirSync(tmpdir()).filter((name) => !before.has(name));
    expect(added).toEqual([]);
  });

  it('no log entry follows a refused request', async () => {
    const before = (await svc.rows()).length;
    await svc.post(FIELD_PATH, form({ id: '1', value: 'x'.repeat(65 * 1024) }), { cookie });
    await fetch(`${svc.url}${FIELD_PATH}?id=1`, { headers: { cookie } });
    expect(await svc.rows()).toHaveLength(before);
  });

  it('answers /healthz', async () => {
    await expectAnswer(await fetch(`${svc.url}/healthz`), 200, '{"ok":true}');
  });

  it('answers an unknown path with 404', async () => {
    const response = await fetch(`${svc.url}/cotizaciones/api/otra.php`, { method: 'POST' });
    expect(response.status).toBe(404);
  });
});

describe('unexpected errors', () => {
  it('answer 500 "Error interno." with the contract headers, no stack, and the cause in the server log', async () => {
    const app = await startApp(
      {},
      {
        updateQuotationField: () => Promise.reject(new Error('kaboom at line 12')),
      },
    );
    const cookie = await app.signIn();
    const response = await fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } });
    await expectAnswer(response, 500, '{"ok":false,"msg":"Error interno."}');
    expect(app.logs.text()).toContain('kaboom at line 12');
    app.close();
  });
});

describe('the upstream token', () => {
  it('when none can be had: the default message, no upstream call, no log, the cause in the server log', async () => {
    const app = await startApp({}, { tokens: { token: () => Promise.reject(new TokenUnavailableError('identity service refused')) } });
    const cookie = await app.signIn();
    for (const [path, msg] of [
      [FIELD_PATH, 'No se pudo actualizar la cotización.'],
      [ITEM_PATH, 'No se pudo actualizar el ítem.'],
    ] as const) {
      const response = await fetch(`${app.url}${path}`, { method: 'POST', body: form({ id: '4' }), headers: { cookie } });
      await expectAnswer(response, 200, JSON.stringify({ ok: false, msg }));
    }
    expect(app.upstream.calls).toHaveLength(0);
    expect(app.activityLog.entries).toHaveLength(0);
    expect(app.logs.lines.filter((line) => line.outcome === 'token-unavailable')).toHaveLength(2);
    expect(app.logs.text()).toContain('identity service refused');
    app.close();
  });

  it('a static token is not resent after a 401', async () => {
    const svc = await startService();
    const cookie = await svc.signIn();
    svc.stub.answer({ status: 401, json: { ok: false, error: { message: 'Token vencido' } } });
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '4' }), { cookie }), 200, '{"ok":false,"msg":"Token vencido"}');
    expect(svc.stub.received).toHaveLength(1);
    await svc.close();
  });
});

describe('UPSTREAM_CLIENT=undici', () => {
  it('forwards through undici with the same answers', async () => {
    const svc = await startService({ UPSTREAM_CLIENT: 'undici', UPSTREAM_TIMEOUT_MS: '1000' });
    const cookie = await svc.signIn();
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '9', delete: '' }), { cookie }), 200, '{"ok":true}');
    svc.stub.answer({ hang: true });
    await expectAnswer(
      await svc.post(ITEM_PATH, form({ id: '9' }), { cookie }),
      200,
      '{"ok":false,"msg":"No se pudo actualizar el ítem."}',
    );
    expect(svc.stub.received.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      ['/api/cotizaciones/items/update', `Bearer ${TOKEN}`, '{"id":"9","delete":1}'],
      ['/api/cotizaciones/items/update', `Bearer ${TOKEN}`, '{"id":"9","field":"","value":""}'],
    ]);
    expect((await svc.rows()).map((row) => row.event_key)).toEqual(['cotizaciones.item_delete']);
    await svc.close();
  });
});

describe('ACTIVITY_LOG_URL', () => {
  it('memory:: the service writes its rows there', async () => {
    const svc = await startService({ ACTIVITY_LOG_URL: 'memory:' });
    const cookie = await svc.signIn('55');
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '77', delete: '' }), { cookie }), 200, '{"ok":true}');
    expect(await svc.rows()).toEqual([
      expect.objectContaining({ event_key: 'cotizaciones.item_delete', entity_id: '77', user_id: '55', details: null }),
    ]);
    await svc.close();
  });
});

describe('BASE_PATH', () => {
  it('serves the endpoints and the dev routes below the prefix only; the probes and documents at the root', async () => {
    const svc = await startService({ BASE_PATH: '/sistema' });
    const cookie = await svc.signIn();
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1' }), { cookie }), 200, '{"ok":true}');
    const bare = await fetch(`${svc.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } });
    expect(bare.status).toBe(404);
    for (const path of ['/dev/login', '/dev/logout']) {
      expect((await fetch(`${svc.url}${path}`, { method: 'POST', body: form({ id: '1' }) })).status, path).toBe(404);
    }
    expect((await fetch(`${svc.url}/dev/activity`)).status).toBe(404);
    expect((await fetch(`${svc.url}/sistema/dev/activity`, { headers: { cookie } })).status).toBe(200);
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/metrics']) {
      expect((await fetch(`${svc.url}${path}`)).status, path).toBe(200);
      expect((await fetch(`${svc.url}/sistema${path}`)).status, `/sistema${path}`).toBe(404);
    }
    await svc.close();
  });
});

describe('session control', () => {
  it('treats a session idle for longer than the idle timeout as absent', () => expectIdleSessionAbsent());

  it('keeps an active session alive past the idle timeout, and ends it at the absolute lifetime', async () => {
    // Only the clock is fake: the server and its sockets run for real, and time moves when the test says.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const app = await startApp({ sessionPolicy: { idleMs: 300_000, maxMs: 700_000 } });
    let cookie = await app.signIn();
    const postAfter = async (ms: number) => {
      vi.setSystemTime(Date.now() + ms);
      const response = await fetch(`${app.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } });
      const updated = response.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      if (updated) cookie = updated;
      return response.text();
    };
    // 4 × 160 s: each request well within the idle limit, 640 s in all, within the lifetime.
    for (let i = 0; i < 4; i += 1) expect(await postAfter(160_000)).toBe('{"ok":true}');
    expect(await postAfter(160_000)).toBe('{"ok":false,"msg":"No autenticado"}');
    app.close();
  });

  it('verifies cookies signed with any key in SESSION_KEYS, and signs with the first', async () => {
    const oldKey = 'old-key-0123456789abcdef';
    const before = await startApp({ sessionKeys: [oldKey] });
    const cookie = await before.signIn();
    before.close();
    const rotated = await startApp({ sessionKeys: [SESSION_KEY, oldKey] });
    const resigned = await fetch(`${rotated.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } });
    await expectAnswer(resigned, 200, '{"ok":true}');
    // Re-signed with the new key, with every attribute kept.
    const setCookies = resigned.headers.getSetCookie();
    expect(setCookies).toHaveLength(2);
    for (const setCookie of setCookies) {
      expect(setCookie).toMatch(/; expires=/i);
      expect(setCookie).toMatch(/; samesite=lax/i);
      expect(setCookie).toMatch(/; httponly/i);
    }
    const resignedValue = /cotizaciones\.sid=([^;]+)/.exec(setCookies.join('; '))?.[1] ?? '';
    expect(cookieHeader(resigned)).toBe(signedCookie('cotizaciones.sid', resignedValue, SESSION_KEY));
    const fresh = await rotated.signIn();
    const value = /cotizaciones\.sid=([^;]+)/.exec(fresh)?.[1] ?? '';
    expect(fresh).toBe(signedCookie('cotizaciones.sid', value, SESSION_KEY));
    rotated.close();
    const dropped = await startApp({ sessionKeys: [SESSION_KEY] });
    await expectAnswer(
      await fetch(`${dropped.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '1' }), headers: { cookie } }),
      200,
      '{"ok":false,"msg":"No autenticado"}',
    );
    dropped.close();
  });

  it('marks cookies Secure in production (behind a TLS proxy)', async () => {
    const app = await startApp({ secureCookies: true, trustProxy: ['127.0.0.1'] });
    const response = await fetch(`${app.url}/dev/login`, {
      method: 'POST',
      body: form({ id: '1' }),
      headers: { 'x-forwarded-proto': 'https' },
    });
    const [sid] = response.headers.getSetCookie().filter((c) => c.startsWith('cotizaciones.sid='));
    expect(sid).toMatch(/; secure/i);
    expect(sid).toMatch(/; httponly/i);
    expect(sid).toMatch(/; samesite=lax/i);
    app.close();
  });

  it('marks the cookies Secure in the composed service with NODE_ENV=production', async () => {
    const svc = await startService({
      NODE_ENV: 'production',
      DEV_LOGIN: '0',
      TRUST_PROXY: '127.0.0.1',
      ALLOWED_ORIGINS: 'https://a.example',
    });
    // Production has no dev sign-in: a session signed with the service's key, seen long enough ago to be set again.
    const at = Date.now() - 120_000;
    const record = Buffer.from(JSON.stringify({ user: { id: '7' }, signedInAt: at, seenAt: at })).toString('base64');
    const response = await svc.post(FIELD_PATH, form({ id: '1' }), {
      cookie: signedCookie('cotizaciones.sid', record, SESSION_KEY),
      headers: { 'x-forwarded-proto': 'https' },
    });
    await expectAnswer(response, 200, '{"ok":true}');
    const setCookies = response.headers.getSetCookie();
    expect(setCookies).toHaveLength(2);
    for (const setCookie of setCookies) {
      expect(setCookie).toMatch(/; secure/i);
      expect(setCookie).toMatch(/; httponly/i);
      expect(setCookie).toMatch(/; samesite=lax/i);
    }
    await svc.close();
  });
});
