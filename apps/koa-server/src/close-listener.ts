import { connect, Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';

export type ListenerClose = 'quiet' | 'sentinel' | 'forced';

const afterPoll = () => new Promise<void>((resolve) => setImmediate(resolve));
const SENTINEL_WAIT_MS = 1_000;

/**
 * Stops accepting without resetting a connection the kernel completed but the process has
 * not accepted yet. Closing a listening socket resets every connection in its accept queue,
 * and a client (nginx) has usually sent its request on it already: a POST then fails.
 *
 * 1. The backlog drops to 0: from then on the kernel holds at most one connection we have not
 *    accepted and drops further SYNs (a client resends one a second later, finds the port
 *    closed, and its request, never sent, goes elsewhere).
 * 2. It waits (up to `quietWaitMs`) for a turn of the event loop that ends with no connection
 *    open, so little is arriving.
 * 3. It connects to itself: on loopback the handshake completes at once and the sentinel takes
 *    the one place in the queue, so nothing else can complete. When the sentinel is accepted,
 *    every connection before it has been, and the listener is closed in that same callback.
 *    If a real connection held the place, the sentinel's SYN was dropped: another one is tried
 *    on the next turn, for up to a second, then the listener is closed anyway.
 *
 * Connections already accepted are not touched (unlike `server.close()`, which also destroys
 * those it deems idle, including one whose request has arrived but is not parsed yet).
 */
export async function closeListener(server: Server, openConnections: () => number, quietWaitMs: number): Promise<ListenerClose> {
  // Node has no public way to change the backlog; its TCP handle re-listens with the new one.
  (server as unknown as { _handle?: { listen?: (backlog: number) => number } })._handle?.listen?.(0);

  const quietUntil = Date.now() + quietWaitMs;
  while (openConnections() > 0 && Date.now() < quietUntil) await afterPoll();
  const quiet = openConnections() === 0;

  const address = server.address();
  if (address === null || typeof address === 'string') return stop(server, 'forced');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;

  const sentinels: Socket[] = [];
  const sentinelPorts = new Set<number>();
  let closed: ListenerClose | undefined;
  const onConnection = (socket: Socket) => {
    if (closed || !sentinelPorts.has(socket.remotePort ?? -1)) return;
    closed = stop(server, quiet ? 'quiet' : 'sentinel');
    socket.destroy();
  };
  server.on('connection', onConnection);
  const until = Date.now() + SENTINEL_WAIT_MS;
  while (!closed && Date.now() < until) {
    const sentinel = connect({ port: address.port, host });
    sentinel.on('error', () => undefined);
    // net.connect makes the connect call on the next tick; its port is known right after, before the next poll accepts it.
    process.nextTick(() => sentinel.localPort !== undefined && sentinelPorts.add(sentinel.localPort));
    sentinels.push(sentinel);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await afterPoll();
  }
  server.off('connection', onConnection);
  for (const sentinel of sentinels) sentinel.destroy();
  return closed ?? stop(server, 'forced');
}

function stop(server: Server, how: ListenerClose): ListenerClose {
  NetServer.prototype.close.call(server);
  return how;
}
