import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { startStubUpstream } from '@cotizaciones/adapters/testing';
import { MAIN, startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, ITEM_PATH, form, SESSION_KEY } from './support/service.js';

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

  it('on SIGTERM finishes requests in flight, writes every log entry, and exits 0', async () => {
    const stub = await startStubUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'sigterm-'));
    const dbFile = join(dir, 'a.db');
    const server = await startProcess({
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: 't',
      SESSION_KEYS: SESSION_KEY,
      DEV_LOGIN: '1',
      ACTIVITY_LOG_URL: `sqlite:${dbFile}`,
    });
    const cookie = cookieHeader(await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '1' }) }));
    // A slow upstream keeps the requests in flight when the signal comes.
    stub.answer({ json: { ok: true }, delayMs: 300 });
    const requests = Array.from({ length: 20 }, (_, i) =>
      fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(i + 1) }), headers: { cookie } }).then((r) => r.text()),
    );
    while (stub.received.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGTERM');
    const answers = await Promise.all(requests);
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(answers).toEqual(Array.from({ length: 20 }, () => '{"ok":true}'));
    const store = await openSqlActivityLogStore(`sqlite:${dbFile}`);
    const ids = (await store.recent(100)).map((row) => Number(row.entity_id));
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await store.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await stub.close();
  });
});
