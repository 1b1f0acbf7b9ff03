import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, form, rawPost, startService, type TestService } from './support/service.js';

const REFUSED = '{"ok":false,"msg":"Origen no permitido."}';

describe('cross-site request defence', () => {
  let svc: TestService;
  let cookie: string;
  beforeAll(async () => {
    svc = await startService();
    cookie = await svc.signIn();
  });
  afterAll(() => svc.close());

  const post = (path: string, headers: Record<string, string>) =>
    rawPost(`${svc.url}${path}`, 'id=5&field=f&delete=', { cookie, ...headers });

  it.each([
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['an Origin of another site', { origin: 'https://evil.example' }],
    ['another port of the same host', { origin: 'http://127.0.0.1:1' }],
    ['the opaque origin "null"', { origin: 'null' }],
    ['a same-site Sec-Fetch-Site with a foreign Origin', { origin: 'https://evil.example', 'sec-fetch-site': 'same-site' }],
  ])('refuses %s with 403, no upstream call, no log', async (_, headers) => {
    const before = (await svc.rows()).length;
    for (const path of [FIELD_PATH, ITEM_PATH]) {
      const response = await post(path, headers);
      await expectAnswer(response, 403, REFUSED);
      expect(response.headers.get('vary')).toMatch(/Origin.*Sec-Fetch-Site/);
    }
    expect(svc.stub.received).toHaveLength(0);
    expect(await svc.rows()).toHaveLength(before);
  });

  it.each([
    ['no Origin (curl, server to server)', {}],
    ['its own origin', 'own'],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site: none (typed URL, bookmark)', { 'sec-fetch-site': 'none' }],
  ])('accepts %s', async (_, headers) => {
    const own = headers === 'own' ? { origin: svc.url, 'sec-fetch-site': 'same-origin' } : headers;
    const response = await post(FIELD_PATH, own);
    await expectAnswer(response, 200, '{"ok":true}');
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });

  it('guards the dev sign-in too', async () => {
    const response = await rawPost(`${svc.url}/dev/login`, 'id=1', { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});

describe('ALLOWED_ORIGINS', () => {
  it('accepts exactly the listed origins', async () => {
    const svc = await startService({ ALLOWED_ORIGINS: 'https://app.example.com, https://admin.example.com' });
    const cookie = await svc.signIn();
    const post = (origin: string) => rawPost(`${svc.url}${FIELD_PATH}`, 'id=5', { cookie, origin });
    await expectAnswer(await post('https://app.example.com'), 200, '{"ok":true}');
    await expectAnswer(await post('https://admin.example.com'), 200, '{"ok":true}');
    await expectAnswer(await post('https://APP.example.com'), 200, '{"ok":true}');
    await expectAnswer(await post('http://app.example.com'), 403, REFUSED);
    await expectAnswer(await post(svc.url), 403, REFUSED);
    await svc.close();
  });
});

describe('session fixation', () => {
  it('gives a fresh session at sign-in, even when the browser already had one', async () => {
    const svc = await startService();
    const first = await svc.signIn('1');
    const response = await fetch(`${svc.url}/dev/login`, { method: 'POST', body: form({ id: '2' }), headers: { cookie: first } });
    const second = response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect(second).not.toBe(first);
    expect(second).toMatch(/cotizaciones\.sid=/);
    await svc.close();
  });
});
