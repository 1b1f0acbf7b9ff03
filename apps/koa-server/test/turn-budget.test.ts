import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { turnBudget } from '../src/http/turn-budget.js';

interface FakeSocket {
  destroyed: boolean;
  paused: boolean;
  pause(): void;
  resume(): void;
  destroy(): void;
}

const fakeSocket = (): FakeSocket => ({
  destroyed: false,
  paused: false,
  destroy() {
    this.destroyed = true;
  },
  pause() {
    this.paused = true;
  },
  resume() {
    this.paused = false;
  },
});

/** A request the listener can tell apart, on a socket the test can close (its own, or a shared one: pipelining); `res` emits 'close' when answered. */
function fakeRequest(id: number, socket: FakeSocket = fakeSocket()): { req: IncomingMessage; res: ServerResponse; socket: FakeSocket } {
  return { req: { id, socket } as unknown as IncomingMessage, res: new EventEmitter() as unknown as ServerResponse, socket };
}

/** Resolves after the end of the current event-loop turn (after the budget's own end-of-turn work). */
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

const idOf = (req: IncomingMessage) => (req as unknown as { id: number }).id;

function recorder(): { started: number[]; listener: (req: IncomingMessage) => void } {
  const started: number[] = [];
  return { started, listener: (req) => started.push(idOf(req)) };
}

const refused: number[] = [];
const budget = (perTurn: number, maxWaiting = 1_000, onGone: (req: IncomingMessage) => void = () => undefined) => ({
  perTurn,
  maxWaiting,
  onGone,
  onFull: (req: IncomingMessage) => refused.push(idOf(req)),
  maxPipelined: 64,
});

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
    const start = turnBudget(listener, budget(3));
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
    const start = turnBudget(listener, budget(2));
    arrive(start, 0, 4);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    arrive(start, 4, 7);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('starts the oldest waiting requests, not a new arrival, when a turn with a backlog reads one', async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, budget(2));
    arrive(start, 0, 7);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    // The next turn's I/O phase: its budget goes to 4 and 5, and 7 waits behind 6.
    arrive(start, 7, 8);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('does not start a waiting request whose client has gone, nor count it against the budget', async () => {
    const { started, listener } = recorder();
    const gone: number[] = [];
    const start = turnBudget(
      listener,
      budget(1, 1_000, (req) => gone.push(idOf(req))),
    );
    const requests = [0, 1, 2].map((id) => fakeRequest(id));
    for (const { req, res } of requests) start(req, res);
    requests[1]!.socket.destroyed = true;
    await endOfTurn();
    expect(started).toEqual([0, 2]);
    expect(gone).toEqual([1]);
  });

  it('lets at most maxWaiting requests wait: a full line refuses the next (onFull), never starts it', async () => {
    const { started, listener } = recorder();
    refused.length = 0;
    const start = turnBudget(listener, budget(1, 3));
    arrive(start, 0, 6);
    expect(started).toEqual([0]);
    expect(refused).toEqual([4, 5]);
    await endOfTurn();
    expect(started).toEqual([0, 1]);
  });

  it('runs one request per connection: a pipelined one waits for the answer before it, on its paused connection', () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, budget(100));
    const shared = fakeSocket();
    const pipelined = [0, 1, 2].map((id) => fakeRequest(id, shared));
    for (const { req, res } of pipelined) start(req, res);
    const other = fakeRequest(3);
    start(other.req, other.res);
    expect(started).toEqual([0, 3]);
    expect(shared.paused).toBe(true);
    (pipelined[0]!.res as unknown as EventEmitter).emit('close');
    expect(started).toEqual([0, 3, 1]);
    expect(shared.paused).toBe(true);
    (pipelined[1]!.res as unknown as EventEmitter).emit('close');
    (pipelined[2]!.res as unknown as EventEmitter).emit('close');
    expect(started).toEqual([0, 3, 1, 2]);
    // Nothing left on it: the connection is read again.
    expect(shared.paused).toBe(false);
  });

  it('puts one request per connection in line, however many it pipelines while the line is long', async () => {
    const { started, listener } = recorder();
    refused.length = 0;
    const start = turnBudget(listener, budget(1, 2));
    arrive(start, 0, 1);
    // The turn's budget is spent: the pipelining connection's first request waits in line, the rest on it.
    const pipelining = fakeSocket();
    const requests = [10, 11, 12, 13].map((id) => fakeRequest(id, pipelining));
    for (const { req, res } of requests) start(req, res);
    arrive(start, 1, 2);
    expect(refused).toEqual([]);
    await endOfTurn();
    expect(started).toEqual([0, 10]);
    await endOfTurn();
    expect(started).toEqual([0, 10, 1]);
    (requests[0]!.res as unknown as EventEmitter).emit('close');
    await endOfTurn();
    expect(started).toEqual([0, 10, 1, 11]);
  });

  it('closes a connection that pipelines more than maxPipelined requests, dropping them unstarted; others go on', () => {
    const { started, listener } = recorder();
    const gone: number[] = [];
    const start = turnBudget(
      listener,
      budget(100, 1_000, (req) => gone.push(idOf(req))),
    );
    const flooding = fakeSocket();
    for (let id = 0; id < 100; id += 1) {
      const { req, res } = fakeRequest(id, flooding);
      start(req, res);
    }
    expect(flooding.destroyed).toBe(true);
    // The one running stays; the 64 it pipelined and the one past the bound are dropped, and what follows too.
    expect(started).toEqual([0]);
    expect(gone).toEqual(Array.from({ length: 99 }, (_, i) => i + 1));
    const other = fakeRequest(1_000);
    start(other.req, other.res);
    expect(started).toEqual([0, 1_000]);
  });

  it('drops the pipelined requests of connections that are gone, however many, without starting them', async () => {
    const { started, listener } = recorder();
    const gone: number[] = [];
    const start = turnBudget(
      listener,
      budget(1, 10_000, (req) => gone.push(idOf(req))),
    );
    arrive(start, 0, 1);
    const sockets = Array.from({ length: 2_000 }, () => fakeSocket());
    let id = 1;
    for (const socket of sockets) {
      for (let i = 0; i < 50; i += 1) {
        const { req, res } = fakeRequest(id++, socket);
        start(req, res);
      }
    }
    for (const socket of sockets) socket.destroyed = true;
    await endOfTurn();
    expect(started).toEqual([0]);
    expect(gone).toHaveLength(2_000 * 50);
  });

  it("starts other connections' first requests before a pipelining connection's second", async () => {
    const { started, listener } = recorder();
    const start = turnBudget(listener, budget(2));
    const pipelining = fakeSocket();
    const first = fakeRequest(0, pipelining);
    start(first.req, first.res);
    for (let id = 1; id < 10; id += 1) {
      const { req, res } = fakeRequest(id, pipelining);
      start(req, res);
    }
    arrive(start, 10, 14);
    expect(started).toEqual([0, 10]);
    (first.res as unknown as EventEmitter).emit('close');
    // Its second request joins the line behind the three newcomers already in it.
    await endOfTurn();
    await endOfTurn();
    expect(started).toEqual([0, 10, 11, 12, 13, 1]);
  });

  it('goes on starting what waits in later turns when a listener throws', async () => {
    const started: number[] = [];
    const start = turnBudget((req) => {
      started.push(idOf(req));
      if (idOf(req) === 1) throw new Error('listener failed');
    }, budget(1));
    arrive(start, 0, 3);
    const thrown = new Promise((resolve) => process.once('uncaughtException', resolve));
    expect(((await thrown) as Error).message).toBe('listener failed');
    await endOfTurn();
    expect(started).toEqual([0, 1, 2]);
  });
});
