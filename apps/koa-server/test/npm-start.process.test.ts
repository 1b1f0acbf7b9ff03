import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAIN, startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, ITEM_PATH, form } from './support/service.js';

describe('the server process', () => {
  it.each<[Record<string, string>, string]>([
    [{ PORT: 'abc' }, 'PORT'],
    [
      {
        NODE_ENV: 'production',
        SESSION_KEYS: 'a-very-long-session-key-0001',
        TRUST_PROXY: '10.0.0.5',
        ALLOWED_ORIGINS: 'https://a.example',
      },
      'UPSTREAM_BASE_URL',
    ],
    [{ ACTIVITY_LOG_URL: 'nope' }, 'ACTIVITY_LOG_URL'],
  ])('stops at start-up with one line naming the variable and exit code 1 (%j)', async (env, variable) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^configuration error: ${variable} (must|is required)`));
  });

  it('starts on the embedded defaults: demo upstream, dev sign-in, SQLite log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-'));
    const server = await startProcess({ ACTIVITY_LOG_URL: `sqlite:${join(dir, 'a.db')}` });
    expect(server.output()).toContain('built-in demo upstream');
    const login = await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '3', name: 'Demo' }) });
    const cookie = cookieHeader(login);
    const update = await fetch(`${server.url}${FIELD_PATH}`, {
      method: 'POST',
      body: form({ id: '12', field: 'estado', value: 'ok' }),
      headers: { cookie },
    });
    expect(await update.text()).toBe('{"ok":true}');
    const remove = await fetch(`${server.url}${ITEM_PATH}`, { method: 'POST', body: form({ id: '0', delete: '' }), headers: { cookie } });
    expect(await remove.text()).toBe('{"ok":false,"msg":"Registro no encontrado."}');
    // The audit row is written just after the answer; /dev/activity writes what is pending before it reads,
    // so the README's quick start, pasted at once, shows the row.
    const rows = (await (await fetch(`${server.url}/dev/activity`)).json()) as Array<{ description: string }>;
    expect(rows.map((row) => row.description)).toEqual(['Actualizó la cotización #12']);
  });
});

describe('npm start', () => {
  it('passes SIGTERM sent to npm on to node, which stops cleanly and says which signal stopped it', async () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    // Only what a user's shell would have: no variables of the turbo run this test may be part of.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TURBO_') && !name.startsWith('npm_')));
    // Its own process group, so the cleanup below reaches a node that npm failed to stop.
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: { ...env, PORT: '0', ACTIVITY_LOG_URL: `sqlite:${join(dir, 'a.db')}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      while (!/"url":"http:[^"]+"/.test(output)) {
        if (npm.exitCode !== null) throw new Error(`npm start exited: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /"url":"(http:[^"]+)"/.exec(output)![1]!;
      expect(await (await fetch(`${url}/healthz`)).text()).toBe('{"ok":true}');
      npm.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(output).toContain('"msg":"stopped by SIGTERM"');
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // the group is gone: everything stopped
      }
    }
  }, 120_000);
});
