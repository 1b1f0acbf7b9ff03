import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, form } from './support/service.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the deployable bundle', () => {
  it('is a directory with production dependencies only that starts with node alone', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'app');
    // What `npm run bundle -- <dir>` runs after building (the test task already built dist).
    execFileSync(join(ROOT, 'node_modules/.bin/pnpm'), ['--filter', '@cotizaciones/koa-server', 'deploy', '--prod', '--legacy', dir], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
    expect(existsSync(join(dir, 'src'))).toBe(false);
    for (const devOnly of ['vitest', 'playwright-core', 'fast-check', 'typescript']) {
      expect(existsSync(join(dir, 'node_modules', devOnly))).toBe(false);
    }

    mkdirSync(join(dir, 'data'));
    const server = await startProcess({ ACTIVITY_LOG_URL: `sqlite:${join(dir, 'data/activity.db')}` }, join(dir, 'dist/main.js'));
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const cookie = cookieHeader(await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '1' }) }));
    const answer = await fetch(`${server.url}${FIELD_PATH}`, {
      method: 'POST',
      body: form({ id: '12', field: 'estado' }),
      headers: { cookie },
    });
    expect(await answer.text()).toBe('{"ok":true}');

    // The operator's command ships in the bundle: the dead-letter replay, as docs/operations.md runs it there.
    const replay = execFileSync(join(dir, 'node_modules/.bin/cotizaciones'), ['replay-dead-letter', join(dir, 'data/none.jsonl')], {
      env: { PATH: process.env.PATH, ACTIVITY_LOG_URL: `sqlite:${join(dir, 'data/activity.db')}` },
      encoding: 'utf8',
    });
    expect(replay).toMatch(/replay-dead-letter: .* 0 written, 0 still refused, 0 unreadable, 0 not tried/);
  }, 120_000);
});
