import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export interface TurnBudget {
  /** Requests started in a turn's I/O phase, and again at its end. */
  readonly perTurn: number;
  /** Requests that may wait; one more starts at once, as it would without a budget. */
  readonly maxWaiting: number;
  /** A waiting request whose client left: it is not started. */
  readonly onGone: (req: IncomingMessage) => void;
}

/**
 * Starts at most `perTurn` requests in the I/O phase of an event-loop turn and `perTurn` more at its
 * end; the rest wait, oldest first, for the next turns. Why: since Node 20, libuv accepts one
 * connection per turn, and a turn of a saturated server ran every request whose bytes had arrived —
 * at 0.7 ms a request and 200 connections a turn lasted 140 ms, and new connections waited seconds in
 * the kernel's accept queue while those already accepted were answered. Fewer starts per turn make
 * turns shorter, so more of them, and more accepts, fit in a second.
 *
 * `maxWaiting` bounds the queue: requests pipelined on one connection arrive without waiting for
 * their answers, and a queue without a bound would hold as many as a client cares to send.
 */
export function turnBudget(listener: RequestListener, { perTurn, maxWaiting, onGone }: TurnBudget): RequestListener {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let started = 0;
  let scheduled = false;

  const startWaiting = (): void => {
    while (started < perTurn && waiting.length > 0) {
      const [req, res] = waiting.shift()!;
      // Nothing was done for it, and no one is left to answer: a gone client does not use the budget.
      if (req.socket.destroyed) onGone(req);
      else {
        started += 1;
        listener(req, res);
      }
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

  return (req, res) => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(endOfTurn);
    }
    if (waiting.length === 0 && started < perTurn) {
      started += 1;
      listener(req, res);
    } else if (waiting.length >= maxWaiting) {
      listener(req, res);
    } else {
      waiting.push([req, res]);
      startWaiting();
    }
  };
}
