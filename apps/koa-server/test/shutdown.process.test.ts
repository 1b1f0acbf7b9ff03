import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { startStubUpstream, type StubUpstreamServer } from '@cotizaciones/adapters/testing';
import { startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, form, SESSION_KEY } from './support/service.js';

let stub: StubUpstreamServer;
let dbFile: string;
beforeEach(async () => {
  stub = await startStubUpstream();
  dbFile = join(mkdtempSync(join(tmpdir(), 'shutdown-')), 'a.db');
});
afterEach(() => stub.close());

async function start(env: Record<string, string> = {}) {
  const server = await startProcess({
    UPSTREAM_BASE_URL: stub.url,
    UPSTREAM_TOKEN: 't',
    SESSION_KEYS: SESSION_KEY,
    DEV_LOGIN: '1',
    ACTIVITY_LOG_URL: `sqlite:${dbFile}`,
    ...env,
  });
  const cookie = cookieHeader(await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '1' }) }));
  return { ...server, cookie };
}

/** `n` concurrent updates, each on its own connection, answered when the stub answers. */
function inFlight(url: string, cookie: string, n: number) {
  const dispatcher = new Agent({ connections: n, pipelining: 0 });
  return Array.from({ length: n }, (_, i) =>
    undiciFetch(`${url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(i + 1) }), headers: { cookie }, dispatcher })
      .then((r) => r.text())
      .catch((error: unknown) => `failed: ${String(error)}`),
  );
}

async function loggedIds(): Promise<number[]> {
  const store = await openSqlActivityLogStore(`sqlite:${dbFile}`);
  const ids = (await store.recent(10_000)).map((row) => Number(row.entity_id)).sort((a, b) => a - b);
  await store.close();
  return ids;
}

describe('graceful shutdown under load', () => {
  it('answers the ~200 requests in flight, refuses new connections, writes every entry, exits 0', async () => {
    const server = await start();
    stub.answer({ json: { ok: true }, delayMs: 400 });
    const answers = inFlight(server.url, server.cookie, 200);
    while (stub.received.length < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 200 }, () => '{"ok":true}'));
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await loggedIds()).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('exits 1 on a second SIGTERM, after writing what it can', async () => {
    const server = await start({ UPSTREAM_TIMEOUT_MS: '60000' });
    stub.answer({ json: { ok: true } });
    expect(await Promise.all(inFlight(server.url, server.cookie, 3))).toEqual(['{"ok":true}', '{"ok":true}', '{"ok":true}']);
    stub.answer({ hang: true });
    void inFlight(server.url, server.cookie, 5);
    while (stub.received.length < 8) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.child.exitCode).toBeNull();
    server.child.kill('SIGTERM');
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(server.output()).toContain('second SIGTERM');
    expect(await loggedIds()).toEqual([1, 2, 3]);
  });

  it('exits 1 when requests outlast SHUTDOWN_TIMEOUT_MS', async () => {
    const server = await start({ UPSTREAM_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '500' });
    stub.answer({ hang: true });
    void inFlight(server.url, server.cookie, 2);
    while (stub.received.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    server.child.kill('SIGTERM');
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.output()).toContain('no clean stop within 500 ms');
  });
});
