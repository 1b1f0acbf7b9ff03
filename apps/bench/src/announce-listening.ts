import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reference server's start: listen on a free loopback port and print its URL as the one stdout
 * line `spawnServer` waits for; the bench stops it with SIGTERM.
 */
export function announceListening(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
