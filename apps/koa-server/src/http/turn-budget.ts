import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Starts at most `perTurn` requests in the I/O phase of an event-loop turn and `perTurn` more at its
 * end; the rest wait, in arrival order, for the next turns. Why: since Node 20, libuv accepts one
 * connection per turn, and a turn of a saturated server runs every request whose bytes arrived — at
 * 0.7 ms a request and 200 connections a turn lasts 140 ms, and a new connection waits seconds in the
 * kernel's accept queue while those already accepted are answered. Bounding the work a turn starts
 * bounds its length: new connections are accepted within a few turns, and waiting is shared in order.
 */
export function turnBudget(listener: RequestListener, perTurn: number): RequestListener {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let started = 0;
  let scheduled = false;

  // Runs at the end of a turn (setImmediate); one scheduled from here runs at the end of the next.
  const endOfTurn = (): void => {
    const batch = waiting.splice(0, perTurn);
    // The next turn's I/O phase starts with a whole budget.
    started = 0;
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(endOfTurn);
    for (const [req, res] of batch) {
      // The client left before its request started: nothing was done, and no one waits for an answer.
      if (!req.socket.destroyed) listener(req, res);
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
    } else {
      waiting.push([req, res]);
    }
  };
}
