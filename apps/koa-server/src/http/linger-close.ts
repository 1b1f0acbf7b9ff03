import type { Socket } from 'node:net';

/**
 * How long, and how many bytes, a closing connection keeps absorbing what the client still sends.
 * The bytes must cover what is already in flight in the kernels' buffers when the answer goes out
 * (on Linux loopback up to tcp_rmem's 32 MiB plus the sender's 4 MiB): with 4 MiB, a client still
 * writing that backlog got a reset before it read the answer.
 */
export const LINGER_MS = 2_000;
export const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * Turns Node's close after a `Connection: close` answer (it calls
 * `destroySoon()` once the answer is written) into a lingering close.
 * Destroying a socket while the client's bytes still arrive makes the kernel
 * send RST, and a client that is still sending then often loses the answer it
 * was sent (EPIPE/ECONNRESET before it reads). So: FIN after the answer, then
 * what still arrives is discarded unparsed — never read as another request, never
 * buffered — until the client closes, for at most LINGER_MS or LINGER_BYTES.
 */
export function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    // Node's HTTP parser would otherwise go on parsing the body, and what follows it as more requests.
    socket.removeAllListeners('data');
    let discarded = 0;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > LINGER_BYTES) socket.destroy();
    });
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
    socket.resume();
  };
}
