import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { attackerPage, listenOn, withTestPage } from './support/browser-pages.js';
import { startService, type TestService } from './support/service.js';
import { missing } from '@cotizaciones/adapters/testing';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`\n[browser tests] SKIPPING: no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)\n`);

// What the test page defines on its window (globalThis, in the page).
type PageHelpers = Record<string, (url: string, data: unknown) => Promise<unknown>> & { signIn(id: string): Promise<unknown> };

const FIELD = '/cotizaciones/api/update_cotizacion_api.php';
const ITEM = '/cotizaciones/api/update_cot_item.php';

describe.skipIf(missing('chromium', available))('the front end in a real browser (headless Chromium)', () => {
  let svc: TestService;
  let site: { server: Server; url: string };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    svc = await startService();
    site = await listenOn(withTestPage(svc.service.app.callback()));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    site?.server.closeAllConnections();
    site?.server.close();
    await svc?.close();
  });
  beforeEach(async () => {
    // A fresh browser context per test: its own cookies.
    page = await (await browser.newContext()).newPage();
    await page.goto(`${site.url}/__test/page.html`);
    svc.stub.received.length = 0;
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: `test-results/${context.task.name.replace(/\W+/g, '-')}.png` });
    }
    await page.context().close();
  });

  const sent = () => svc.stub.received.map((r) => JSON.parse(r.body) as unknown);
  const lastRow = async () => (await svc.rows()).at(-1);

  it.each([
    ['$.post', 'viaJqueryPost', { id: '101', field: 'estado', value: 'aprobada ñ' }],
    [
      '$.ajax with FormData',
      'viaJqueryFormData',
      [
        ['id', '102'],
        ['field', 'estado'],
        ['value', 'aprobada ñ'],
      ],
    ],
    [
      'fetch with URLSearchParams',
      'viaFetchParams',
      [
        ['id', '103'],
        ['field', 'estado'],
        ['value', 'aprobada ñ'],
      ],
    ],
    [
      'fetch with FormData',
      'viaFetchFormData',
      [
        ['id', '104'],
        ['field', 'estado'],
        ['value', 'aprobada ñ'],
      ],
    ],
  ])('updates a quotation with %s', async (_, how, data) => {
    expect(await page.evaluate(() => (globalThis as unknown as PageHelpers).signIn('7'))).toEqual({ ok: true });
    const reply = await page.evaluate(([fn, url, payload]) => (globalThis as unknown as PageHelpers)[fn]!(url, payload), [
      how,
      FIELD,
      data,
    ] as const);
    expect(reply).toEqual({ ok: true });
    const id = Array.isArray(data) ? (data[0] as string[])[1] : (data as { id: string }).id;
    expect(sent()).toEqual([{ id, field: 'estado', value: 'aprobada ñ' }]);
    expect(await lastRow()).toMatchObject({ event_key: 'cotizaciones.update', entity_id: id, user_id: '7', details: '{"field":"estado"}' });
  });

  it('deletes an item with a plain HTML form', async () => {
    await page.evaluate(() => (globalThis as unknown as PageHelpers).signIn('8'));
    await Promise.all([page.waitForURL(`**${ITEM}`), page.click('#item-form button')]);
    expect(JSON.parse(await page.locator('body').innerText())).toEqual({ ok: true });
    expect(sent()).toEqual([{ id: '44', delete: 1 }]);
    expect(await lastRow()).toMatchObject({ event_key: 'cotizaciones.item_delete', entity_id: '44', user_id: '8', details: null });
  });

  it('shows "No autenticado" to a signed-out page', async () => {
    const reply = await page.evaluate((url) => (globalThis as unknown as PageHelpers).viaJqueryPost!(url, { id: '5' }), FIELD);
    expect(reply).toEqual({ ok: false, msg: 'No autenticado' });
    expect(sent()).toEqual([]);
  });

  it('refuses a form posted from a page on another site', async () => {
    await page.evaluate(() => (globalThis as unknown as PageHelpers).signIn('9'));
    const rowsBefore = (await svc.rows()).length;
    const evil = await listenOn((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(site.url)), 'localhost');
    try {
      const evilPage = await page.context().newPage();
      await evilPage.goto(`${evil.url}/`);
      const [response] = await Promise.all([evilPage.waitForResponse(`**${ITEM}`), evilPage.click('#evil button')]);
      expect(response.status()).toBe(403);
      expect(await response.json()).toEqual({ ok: false, msg: 'Origen no permitido.' });
      expect(sent()).toEqual([]);
      expect(await svc.rows()).toHaveLength(rowsBefore);
    } finally {
      evil.server.closeAllConnections();
      evil.server.close();
    }
  });
});
