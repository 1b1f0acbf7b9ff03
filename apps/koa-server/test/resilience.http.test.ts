import { describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { SQLite, startStubTokenEndpoint } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, SESSION_KEY, TOKEN, form, signedCookie, startService } from './support/service.js';
import { until } from './support/until.js';

describe('a failing activity-log store', () => {
  it('changes no response, is reported in the server log, and loses no entry once it is back', async () => {
    const svc = await startService();
    const cookie = await svc.signIn();
    // The store opens in the background; once it has (ready), break it under the running service: its table disappears.
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
    const dbFile = svc.dbFile;
    const db = new SQLite(dbFile);
    db.exec('DROP TABLE activity_log');
    const started = performance.now();
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '21', field: 'a' }), { cookie }), 200, '{"ok":true}');
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '22', delete: '' }), { cookie }), 200, '{"ok":true}');
    // Only bounds a hang: the answers never wait for the store.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await until(() => svc.logs.lines.some((line) => line.msg === 'activity log write failed; will retry'), 10_000)).toBe(true);
    // The store comes back: the table is there again.
    const reopened = await openSqlActivityLogStore(`sqlite:${dbFile}`);
    await reopened.close();
    db.close();
    const rows = await svc.rows();
    expect(rows.map((row) => row.entity_id)).toEqual(['21', '22']);
    expect(svc.service.activityLog.stats()).toMatchObject({ written: 2, dropped: 0 });
    await svc.close();
  });
});

describe('secrets', () => {
  it.each([
    ['a static token', {}],
    ['OAuth2 client credentials', { oauth: true }],
  ])(
    'with %s: the token, client secret, session keys and cookie values never show in answers, log rows or server log lines',
    async (_, how) => {
      const endpoint = await startStubTokenEndpoint();
      const env =
        'oauth' in how
          ? {
              UPSTREAM_TOKEN: '',
              UPSTREAM_TOKEN_URL: endpoint.url,
              UPSTREAM_CLIENT_ID: 'svc',
              UPSTREAM_CLIENT_SECRET: 'client-SECRET-9f8e7d6c5b4a',
            }
          : {};
      const svc = await startService(env);
      const cookie = await svc.signIn();
      const cookieValues = cookie.split('; ').map((pair) => pair.slice(pair.indexOf('=') + 1));
      const seen: string[] = [];
      const answers = [
        { json: { ok: true } },
        { json: { ok: false, error: { message: 'x' } } },
        { status: 401, json: { ok: false } },
        { drop: true as const },
        { text: '<html>' },
      ];
      for (const answer of answers) {
        svc.stub.answer(answer);
        for (const path of [FIELD_PATH, ITEM_PATH]) {
          for (const body of [form({ id: '5', field: 'f', value: 'v' }), form({ 'id[]': '1' })]) {
            const response = await svc.post(path, body, { cookie });
            seen.push(JSON.stringify([...response.headers]), await response.text());
          }
        }
      }
      const rows = JSON.stringify(await svc.rows());
      await svc.close();
      const logText = svc.logs.text();
      const issuedTokens = endpoint.requests.map((_, i) => `token-${i + 1}`);
      const secrets = [TOKEN, SESSION_KEY, 'client-SECRET-9f8e7d6c5b4a', ...cookieValues, ...issuedTokens];
      expect(svc.stub.received.length).toBeGreaterThan(0);
      for (const text of [...seen, rows, logText]) {
        for (const secret of secrets) expect(text).not.toContain(secret);
      }
      await endpoint.close();
    },
  );
});

describe('sessions in Redis', () => {
  it('answers 503 "Servicio no disponible." while Redis is unreachable, without calling the upstream', async () => {
    const svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
    const cookie = signedCookie('cotizaciones.sid', 'some-session-id', SESSION_KEY);
    for (const path of [FIELD_PATH, ITEM_PATH]) {
      await expectAnswer(await svc.post(path, form({ id: '5' }), { cookie }), 503, '{"ok":false,"msg":"Servicio no disponible."}');
    }
    // Without a (validly signed) session cookie there is nobody to look up: not signed in.
    await expectAnswer(await svc.post(ITEM_PATH, form({ id: '5' })), 200, '{"ok":false,"msg":"No autenticado"}');
    expect(svc.stub.received).toHaveLength(0);
    await svc.close();
  });
});
