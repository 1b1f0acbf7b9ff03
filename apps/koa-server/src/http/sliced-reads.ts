import type { Socket } from 'node:net';

/**
 * Hands a connection's reads to the HTTP parser in slices of at most `sliceBytes`, and stops at the
 * first slice after which the connection is paused or closed; the rest waits in the socket's buffer
 * until it is resumed. Node's parser takes a whole read (up to 64 KiB) at once: a read of tiny
 * pipelined requests became a thousand request objects, kept until the connection closed, before
 * the first could be refused. Sliced, what one connection makes the server build is bounded by
 * what it may pipeline plus one slice.
 *
 * Call it from a `connection` listener that runs before the HTTP server's own (`prependListener`).
 */
export function sliceReads(socket: Socket, sliceBytes: number): void {
  // A fresh handle is read by the parser in C++, with no 'data' event to slice; one marked as
  // consumed is read through 'data', which Node's server also supports (TLS sockets take that path).
  const handle = (socket as unknown as { _handle?: { _consumed?: boolean } })._handle;
  if (handle) handle._consumed = true;
  type Emit = (event: string | symbol, ...args: unknown[]) => boolean;
  const emit = socket.emit.bind(socket) as Emit;
  const sliced: Emit = (event, ...args) => {
    if (event !== 'data' || !Buffer.isBuffer(args[0])) return emit(event, ...args);
    let chunk: Buffer = args[0];
    while (chunk.length > sliceBytes) {
      emit('data', chunk.subarray(0, sliceBytes));
      chunk = chunk.subarray(sliceBytes);
      if (socket.destroyed) return true;
      if (socket.isPaused()) {
        socket.unshift(chunk);
        return true;
      }
    }
    return emit('data', chunk);
  };
  socket.emit = sliced as Socket['emit'];
}
