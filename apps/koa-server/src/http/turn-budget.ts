import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface TurnBudget {
  /** Requests started in a turn's I/O phase, and again at its end. */
  readonly perTurn: number;
  /** Connections' requests that may wait in line; past it, a new one is refused. */
  readonly maxWaiting: number;
  /** A waiting request whose client left: it is not started. */
  readonly onGone: (req: IncomingMessage) => void;
  /** A request the full line cannot take: answered at once (the contract's 503), never started. */
  readonly onFull: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Requests one connection may have pipelined behind the one it runs. Pausing the socket stops
   * further reads, but one read can hold a thousand small requests: past this the connection is
   * closed, and what it pipelined is dropped unanswered.
   */
  readonly maxPipelined: number;
}

/** What one connection has in the server: a request waiting in line or running, and its pipelined ones, in order. */
interface Connection {
  busy: boolean;
  readonly pipelined: Array<[IncomingMessage, ServerResponse]>;
}

/**
 * Starts requests fairly across connections, and at most `perTurn` of them in the I/O phase of an
 * event-loop turn and `perTurn` more at its end; the rest wait in one line, oldest first.
 *
 * - Fair: a connection runs one request at a time. Its pipelined requests wait behind it, on the
 *   connection (which stops being read meanwhile), and join the line only when the one before is
 *   answered: no client gets a second request started ahead of other connections' first ones.
 * - Bounded: at most `maxWaiting` requests wait in line; a full line refuses (`onFull`) rather than
 *   start everything at once.
 * - Per turn: since Node 20, libuv accepts one connection per turn, and a turn of a saturated server
 *   ran every request whose bytes had arrived — at 0.7 ms a request and 200 connections a turn lasted
 *   140 ms, and new connections waited seconds in the kernel's accept queue. Fewer starts per turn
 *   make turns shorter, so more of them, and more accepts, fit in a second.
 */
export function turnBudget(listener: RequestListener, { perTurn, maxWaiting, onGone, onFull, maxPipelined }: TurnBudget): RequestListener {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  const connections = new WeakMap<Socket, Connection>();
  let started = 0;
  let scheduled = false;

  const run = (req: IncomingMessage, res: ServerResponse): void => {
    const connection = connectionOf(req.socket);
    res.once('close', () => next(req.socket, connection));
    started += 1;
    listener(req, res);
  };

  /** The connection's request is answered: its next pipelined one joins the line, or the socket is read again. */
  const next = (socket: Socket, connection: Connection): void => {
    connection.busy = false;
    if (socket.destroyed) {
      // No one is left to answer: its pipelined requests are not started, and never join the line.
      for (const [req] of connection.pipelined.splice(0)) onGone(req);
      return;
    }
    const following = connection.pipelined.shift();
    if (!following) {
      socket.resume();
      return;
    }
    enqueue(following[0], following[1]);
  };

  const startWaiting = (): void => {
    while (started < perTurn && waiting.length > 0) {
      const [req, res] = waiting.shift()!;
      // Nothing was done for it, and no one is left to answer: a gone client does not use the budget.
      if (req.socket.destroyed) {
        onGone(req);
        next(req.socket, connectionOf(req.socket));
      } else run(req, res);
    }
  };

  // Runs at the end of a turn (setImmediate); one scheduled from here runs at the end of the next.
  const endOfTurn = (): void => {
    started = 0;
    try {
      startWaiting();
    } finally {
      // The next turn's I/O phase starts with a whole budget; what still waits gets the next turn's end.
      started = 0;
      scheduled = waiting.length > 0;
      if (scheduled) setImmediate(endOfTurn);
    }
  };

  /** A connection's next request: started now if the turn allows and no one waits, else in line. */
  const enqueue = (req: IncomingMessage, res: ServerResponse): void => {
    // Its connection has a request in line or running from now until that one is answered.
    connectionOf(req.socket).busy = true;
    if (!scheduled) {
      scheduled = true;
      setImmediate(endOfTurn);
    }
    if (waiting.length === 0 && started < perTurn) run(req, res);
    else if (waiting.length >= maxWaiting) refuse(req, res);
    else {
      waiting.push([req, res]);
      startWaiting();
    }
  };

  const refuse = (req: IncomingMessage, res: ServerResponse): void => {
    const connection = connectionOf(req.socket);
    // Its pipelined requests would be answered after it on a closing connection: they are not started either.
    connection.pipelined.length = 0;
    onFull(req, res);
  };

  const connectionOf = (socket: Socket): Connection => {
    let connection = connections.get(socket);
    if (!connection) connections.set(socket, (connection = { busy: false, pipelined: [] }));
    return connection;
  };

  return (req, res) => {
    // Parsed from what was read before its connection was closed: no one to answer.
    if (req.socket.destroyed) {
      onGone(req);
      return;
    }
    const connection = connectionOf(req.socket);
    if (connection.busy) {
      // Pipelined: waits for its turn on its own connection, which is not read meanwhile.
      if (connection.pipelined.length >= maxPipelined) {
        for (const [dropped] of connection.pipelined.splice(0)) onGone(dropped);
        onGone(req);
        req.socket.destroy();
        return;
      }
      connection.pipelined.push([req, res]);
      req.socket.pause();
      return;
    }
    enqueue(req, res);
  };
}
