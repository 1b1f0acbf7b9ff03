import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, missing } from '@cotizaciones/adapters/testing';
import { pendingConnections } from '../src/pending-connections.js';

/** Polls `check` without yielding to the event loop (so nothing is accepted meanwhile), up to `ms`. */
function spinUntil(check: () => boolean, ms: number): boolean {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) if (check()) return true;
  return check();
}

describe.skipIf(missing("Linux's /proc/net/tcp", pendingConnections(1) !== undefined))(
  'connections the kernel holds for a port and nobody accepted (Linux)',
  () => {
    it('names the client port of a completed handshake waiting in the accept queue, and not once accepted', async () => {
      const server = createServer((socket) => socket.destroy());
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const port = (server.address() as { port: number }).port;
      const clientPort = await freePort();
      expect(pendingConnections(port)).toEqual([]);

      const client = spawn(process.execPath, [
        '-e',
        `require('node:net').connect({ port: ${port}, host: '127.0.0.1', localPort: ${clientPort} }).on('error', () => {}); setInterval(() => {}, 1000);`,
      ]);
      try {
        // This thread does not yield, so the server cannot accept: the connection waits in the kernel.
        expect(spinUntil(() => pendingConnections(port)!.length > 0, 10_000)).toBe(true);
        expect(pendingConnections(port)).toEqual([clientPort]);

        const accepted = once(server, 'connection');
        await accepted;
        expect(pendingConnections(port)).toEqual([]);
      } finally {
        client.kill('SIGKILL');
        server.close();
      }
    });
  },
);
