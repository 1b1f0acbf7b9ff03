import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { turnBudget } from '../src/http/turn-budget.js';

/** A request the listener can tell apart, on a socket the test can close. */
function fakeRequest(id: number): { req: IncomingMessage; res: ServerResponse; socket: { destroyed: boolean } } {
  const socket = { destroyed: false };
  return { req: { id, socket } as unknown as IncomingMessage, res: {} as ServerResponse, socket };
}

/** Resolves after the end of the current event-loop turn (after the budget's own end-of-turn work). */
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorder(): { started: number[]; listener: (req: IncomingMessage) => void } {
  const started: number[] = [];
  return { started, listener: (req) => started.push((req as unknown as { id: number }).id) };
}

/** Requests `from` to `to - 1` arrive, in this one tick. */
function arrive(start: (req: IncomingMessage, res: ServerResponse) => void, from: number, to: number): void {
  for (let id = from; id < to; id += 1) {
    const { req, res } = fakeRequest(id);
    start(req, res);
  }
}

describe('turnBudget', () => {
  it('starts perTurn requests at once, perTurn more at the end of each turn, in arrival order', async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, 3);
    arrive(start, 0, 10);
    expect(started).toEqual([0, 1, 2]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('gives a turn with no one waiting its whole budget again', async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, 2);
    arrive(start, 0, 4);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    // A turn later the queue is empty and the budget whole: two start at once, the third waits.
    arrive(start, 4, 7);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('keeps a request that arrives while others wait behind them, even with budget left in its turn', async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, 2);
    arrive(start, 0, 6);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    arrive(start, 6, 7);
    expect(started).toEqual([0, 1, 2, 3]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('does not start a waiting request whose client has gone', async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, 1);
    const requests = [0, 1, 2].map(fakeRequest);
    for (const { req, res } of requests) start(req, res);
    requests[1]!.socket.destroyed = true;
    await endOfTurn();
    await endOfTurn();
    expect(started).toEqual([0, 2]);
  });
});
