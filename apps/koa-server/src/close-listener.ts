import { connect, Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { pendingConnections } from './pending-connections.js';

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
 *    the one place in the queue, so nothing else can complete. On Linux, before the process
 *    can accept it, the kernel's table must show the sentinel queued and no other connection
 *    to the port unaccepted (a client's handshake that crossed the sentinel's: its last ACK was
 *    dropped, yet it sends its request); then the listener is closed, the sentinel still
 *    queued. Elsewhere, the listener is closed when the sentinel is accepted: every connection
 *    before it has been. Otherwise another sentinel is tried on the next turn, for up to a
 *    second, then the listener is closed anyway.
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
  const kernelTable = queuedConnections(address.port, new Set()) !== undefined;

  const sentinels: Socket[] = [];
  const sentinelPorts = new Set<number>();
  let closed: ListenerClose | undefined;
  const onConnection = (socket: Socket) => {
    if (!sentinelPorts.has(socket.remotePort ?? -1)) return;
    socket.destroy();
    if (!closed && !kernelTable) closed = stop(server, quiet ? 'quiet' : 'sentinel');
  };
  server.on('connection', onConnection);
  const until = Date.now() + SENTINEL_WAIT_MS;
  while (!closed && Date.now() < until) {
    const sentinel = connect({ port: address.port, host });
    sentinel.on('error', () => undefined);
    sentinels.push(sentinel);
    // net.connect makes the connect call on the next tick; its port is known right after, before the next poll accepts it.
    process.nextTick(() => {
      if (sentinel.localPort === undefined) return;
      sentinelPorts.add(sentinel.localPort);
      if (closed || !kernelTable) return;
      const queued = queuedConnections(address.port, sentinelPorts);
      if (queued?.sentinel && queued.others === 0) closed = stop(server, quiet ? 'quiet' : 'sentinel');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await afterPoll();
  }
  server.off('connection', onConnection);
  for (const sentinel of sentinels) sentinel.destroy();
  return closed ?? stop(server, 'forced');
}

/** What the kernel holds unaccepted for the port: whether one of the sentinels, and how many others. */
function queuedConnections(port: number, sentinelPorts: ReadonlySet<number>): { sentinel: boolean; others: number } | undefined {
  const pending = pendingConnections(port);
  if (pending === undefined) return undefined;
  const sentinel = pending.some((remotePort) => sentinelPorts.has(remotePort));
  return { sentinel, others: pending.filter((remotePort) => !sentinelPorts.has(remotePort)).length };
}

function stop(server: Server, how: ListenerClose): ListenerClose {
  NetServer.prototype.close.call(server);
  return how;
}
