import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startService } from './support/service.js';

// The http tier has the unit tier's guard (vitest.unit-guard.ts): the app in this process, nothing beside it.
describe('the http tier', () => {
  it('refuses to start a process, and a connection to a port no server of this process listens on', async () => {
    expect(() => spawnSync('true')).toThrow(/in-process tier \(unit, http\): child_process.spawnSync/);
    await expect(fetch('http://127.0.0.1:6379/')).rejects.toSatisfy((error: Error) => /in-process tier/.test(String(error.cause)));
  });

  it('lets a test reach the app it started', async () => {
    const svc = await startService();
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    await svc.close();
  });
});
