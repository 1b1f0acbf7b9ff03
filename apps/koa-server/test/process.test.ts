import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN, startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, ITEM_PATH, form } from './support/service.js';

describe('the server process', () => {
  it.each<[Record<string, string>, string]>([
    [{ PORT: 'abc' }, 'PORT'],
    [{ NODE_ENV: 'production' }, 'UPSTREAM_BASE_URL'],
    [{ ACTIVITY_LOG_URL: 'nope' }, 'ACTIVITY_LOG_URL'],
  ])('stops at start-up with one line naming the variable and exit code 1 (%j)', async (env, variable) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^configuration error: ${variable}: `));
  });

  it('starts on the embedded defaults: demo upstream, dev sign-in, SQLite log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-'));
    const server = await startProcess({ ACTIVITY_LOG_URL: `sqlite:${join(dir, 'a.db')}` });
    expect(server.output()).toContain('built-in demo upstream');
    const login = await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '3', name: 'Demo' }) });
    const cookie = cookieHeader(login);
    const update = await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: '12', field: 'estado', value: 'ok' }), headers: { cookie } });
    expect(await update.text()).toBe('{"ok":true}');
    const remove = await fetch(`${server.url}${ITEM_PATH}`, { method: 'POST', body: form({ id: '0', delete: '' }), headers: { cookie } });
    expect(await remove.text()).toBe('{"ok":false,"msg":"Registro no encontrado."}');
    // The audit row is written just after the answer.
    let rows: Array<{ description: string }> = [];
    for (let i = 0; i < 40 && rows.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      rows = (await (await fetch(`${server.url}/dev/activity`)).json()) as Array<{ description: string }>;
    }
    expect(rows.map((row) => row.description)).toEqual(['Actualizó la cotización #12']);
  });
});
