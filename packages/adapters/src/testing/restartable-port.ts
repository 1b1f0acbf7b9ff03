import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;

/**
 * A free loopback port below the kernel's ephemeral range, for a server a test stops and starts
 * again. While such a server is down, a port in that range can become the local end of another
 * connection, or of a client's retried connection to itself (TCP's simultaneous open), and the
 * restarted server could not bind it.
 */
export async function restartablePort(): Promise<number> {
  const below = ephemeralLow();
  for (let tries = 0; tries < 100; tries += 1) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${below}`);
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch {
    // Not Linux: Linux's default range.
  }
  return 32_768;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
