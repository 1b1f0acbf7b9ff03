import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { PHP_SESSION_SETUPS, missingForDemo, startStrangler, type Strangler } from '../../../demo/strangler.mjs';
import { until } from './support/until.js';
import { missing, openSqliteReadOnly } from '@cotizaciones/adapters/testing';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const needed = [...missingForDemo(), ...(existsSync(CHROMIUM) ? [] : ['chromium'])];

const FIELD = '/cotizaciones/api/update_cotizacion_api.php';
const ITEM = '/cotizaciones/api/update_cot_item.php';

interface Row {
  event_key: string;
  entity_id: string;
  user_id: string;
}

describe.skipIf(missing(`${needed.join(', ')} (.ci/run installs them)`, needed.length === 0))(
  'the strangler demo in a real browser: PHP pages and sign-in, the two endpoints served by the service, through nginx',
  () => {
    let browser: Browser;
    beforeAll(async () => {
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
    }, 40_000);
    afterAll(async () => {
      await browser?.close();
    });

    // Every PHP session set-up of the demo (save handler and serializer), each with its own PHP, store, service and nginx.
    for (const setup of PHP_SESSION_SETUPS) {
      const lacking = missingForDemo(setup.name);
      describe.skipIf(missing(`${setup.name}: ${lacking.join(', ')} (.ci/run installs or sets them)`, lacking.length === 0))(
        `PHP sessions in ${setup.name}`,
        () => {
          let demo: Strangler;
          let context: BrowserContext;
          let page: Page;
          let output = '';

          beforeAll(async () => {
            demo = await startStrangler({ port: 0, session: setup.name, onOutput: (_, text) => (output += text) });
          }, 40_000);
          afterAll(async () => {
            await demo?.stop();
          });
          beforeEach(async () => {
            context = await browser.newContext();
            page = await context.newPage();
          });
          afterEach(async (test) => {
            if (test.task.result?.state === 'fail') {
              mkdirSync('test-results', { recursive: true });
              await page.screenshot({ path: `test-results/${`${setup.name} ${test.task.name}`.replace(/\W+/g, '-')}.png` });
              console.error(output);
            }
            await context.close();
          });
          const rows = (): Row[] => {
            const db = openSqliteReadOnly(demo.activityDb);
            try {
              return db
                .prepare('SELECT event_key, CAST(entity_id AS TEXT) AS entity_id, user_id FROM activity_log ORDER BY id')
                .all() as Row[];
            } catch {
              return []; // Not created yet: the service creates its table on its first write.
            } finally {
              db.close();
            }
          };
          const servedByPhp = (response: Response | null) => response?.headers()['x-served-by'] === 'php';
          const servedByService = (response: Response) =>
            response.headers()['x-served-by'] === undefined && /^[0-9a-f]{32}$/.test(response.headers()['x-request-id'] ?? '');

          const signIn = async (id: string) => {
            expect(servedByPhp(await page.goto(`${demo.url}/`))).toBe(true);
            await page.fill('input[name=id]', id);
            await Promise.all([page.waitForURL('**/cotizacion.php?id=101'), page.click('#signin button')]);
            expect(await page.locator('#user').innerText()).toBe('Ana Núñez');
          };
          /** Clicks `button` on the quotation page; the answer shown, and the HTTP response behind it. */
          const edit = async (button: string, path: string) => {
            const [response] = await Promise.all([page.waitForResponse(`**${path}`), page.click(button)]);
            // The page shows the answer once jQuery has it: JSON in place of the '…' it wrote before posting.
            await page.locator('#result').filter({ hasText: /^\{/ }).waitFor();
            return { shown: JSON.parse(await page.locator('#result').innerText()) as unknown, response };
          };

          it("the service reads the set-up's save handler, database and serializer (its start-up line)", () => {
            const [handler, serializer, database] = setup.name.split('/');
            const where = database === undefined ? '' : `.* in ${database}\\b`;
            expect(demo.sessionsRead).toMatch(new RegExp(`^PHP sessions: ${handler}\\b${where}.*, serializer ${serializer},`));
          });

          it('signs in on the PHP page and edits with jQuery: {"ok":true}, the audit row has the PHP user\'s id', async () => {
            await signIn('4242');
            await page.fill('input[name=value]', 'aprobada ñ');
            const field = await edit('#edit button', FIELD);
            expect(field.shown).toEqual({ ok: true });
            expect(servedByService(field.response)).toBe(true);
            const item = await edit('#delete-item', ITEM);
            expect(item.shown).toEqual({ ok: true });
            expect(servedByService(item.response)).toBe(true);
            expect(await until(() => rows().length >= 2, 5_000)).toBe(true);
            expect(rows().slice(-2)).toEqual([
              { event_key: 'cotizaciones.update', entity_id: '101', user_id: '4242' },
              { event_key: 'cotizaciones.item_delete', entity_id: '44', user_id: '4242' },
            ]);
          });

          it('after signing out in PHP (another tab), the next edit on the open page shows "No autenticado"', async () => {
            await signIn('4343');
            const written = rows().length;
            expect((await edit('#edit button', FIELD)).shown).toEqual({ ok: true });
            expect(await until(() => rows().length === written + 1, 5_000)).toBe(true);
            const other = await context.newPage();
            const signOut = await other.goto(`${demo.url}/logout.php`);
            expect(servedByPhp(signOut)).toBe(true);
            expect(other.url()).toBe(`${demo.url}/index.php`);
            const after = await edit('#edit button', FIELD);
            expect(after.shown).toEqual({ ok: false, msg: 'No autenticado' });
            expect(servedByService(after.response)).toBe(true);
            expect(rows()).toHaveLength(written + 1);
          });
        },
      );
    }
  },
);
