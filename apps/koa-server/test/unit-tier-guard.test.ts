import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';

// The unit and http tiers' set-up file (vitest.unit-guard.ts) keeps their tests in this process
// (tier-guard.http.test.ts: the http tier has it too).
async function listening(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

describe('the unit tier', () => {
  it('refuses to start a process, whichever way child_process is imported', async () => {
    expect(() => spawnSync('true')).toThrow(/in-process tier \(unit, http\): child_process.spawnSync\("true"\).*\.int\.test\.ts/);
    expect(() => spawn('true')).toThrow(/in-process tier/);
    const required = await import('node:child_process');
    expect(() => required.execFileSync('true')).toThrow(/in-process tier/);
  });

  it("refuses a connection to a port no server of this process listens on (a database's)", async () => {
    const { server, port } = await listening();
    server.close();
    await once(server, 'close');
    expect(() => connect(port, '127.0.0.1')).toThrow(`in-process tier (unit, http): a connection to port ${port}`);
    expect(() => connect({ port: 5432, host: '127.0.0.1' })).toThrow(/port 5432/);
    await expect(fetch('http://127.0.0.1:6379/')).rejects.toSatisfy((error: Error) => /in-process tier/.test(String(error.cause)));
  });

  it('lets a test talk to a loopback server of its own', async () => {
    const { server, port } = await listening();
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.destroy();
    server.close();
  });
});
