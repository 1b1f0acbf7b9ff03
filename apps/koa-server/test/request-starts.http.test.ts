import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { splitAnswers } from './support/raw-socket.js';
import { captureLog, listen } from './support/service.js';

/** GET `url` on the agent's sockets; resolves with the answer's text. */
function get(url: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('the HTTP server under a burst of requests', () => {
  it('starts at most 16 requests in one event-loop turn, and answers every one', async () => {
    // Counts the loop's turns: one increment per check phase.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const startsByTurn = new Map<number, number>();
    const app = new Koa();
    app.use((ctx) => {
      startsByTurn.set(turn, (startsByTurn.get(turn) ?? 0) + 1);
      ctx.body = 'ok';
    });
    const { server, url } = await listen(app);
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    cleanups.push(() => {
      ticking = false;
      agent.destroy();
      server.close();
    });
    // 64 connections, accepted and idle (a new one is accepted once per turn, whatever this test does).
    await Promise.all(Array.from({ length: 64 }, () => get(`${url}/warm`, agent)));
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(64);
    startsByTurn.clear();

    // Written in this one tick, on 64 connections: the server reads them all in one I/O phase.
    const answers = await Promise.all(Array.from({ length: 64 }, () => get(`${url}/burst`, agent)));

    expect(answers.every((text) => text === 'ok')).toBe(true);
    expect([...startsByTurn.values()].reduce((sum, n) => sum + n, 0)).toBe(64);
    expect(Math.max(...startsByTurn.values())).toBeLessThanOrEqual(16);
  });
});

describe('fair share between connections', () => {
  it("runs a pipelining connection's requests one at a time, in order, while a newcomer's request is started and answered", async () => {
    const started: string[] = [];
    const held = new Map<string, () => void>();
    const app = new Koa();
    app.use(async (ctx) => {
      started.push(ctx.path);
      // Requests to /slow/… are answered when the test says so.
      if (ctx.path.startsWith('/slow/')) await new Promise<void>((resolve) => held.set(ctx.path, resolve));
      ctx.body = ctx.path;
    });
    const { server, url } = await listen(app);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    cleanups.push(() => {
      socket.destroy();
      server.close();
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // Eight requests written at once on one connection, without waiting for answers.
    socket.write(Array.from({ length: 8 }, (_, i) => `GET /slow/${i + 1} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((resolve) => setImmediate(resolve));
    };
    await until(() => held.has('/slow/1'));

    // A newcomer on its own connection is started and answered while the pipelining one waits on its first.
    expect(await (await fetch(`${url}/new`)).text()).toBe('/new');
    expect(started).toEqual(['/slow/1', '/new']);

    // Each answer lets the connection's next request start, and only then.
    for (let i = 1; i <= 8; i += 1) {
      await until(() => held.has(`/slow/${i}`));
      expect(started.filter((path) => path.startsWith('/slow/'))).toHaveLength(i);
      held.get(`/slow/${i}`)!();
    }
    await until(() => (received.match(/HTTP\/1\.1 200/g) ?? []).length === 8);
    expect([...received.matchAll(/\r\n\r\n(\/slow\/\d)/g)].map((match) => match[1])).toEqual(
      Array.from({ length: 8 }, (_, i) => `/slow/${i + 1}`),
    );
  });
});

describe('what one connection can make the server parse', () => {
  /** A raw connection to `url`; `received` holds what the server wrote, `closed` settles when it closes. */
  const open = (url: string) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const connection = { socket, received: '', closed: new Promise<void>((resolve) => socket.once('close', () => resolve())) };
    socket.on('data', (chunk: Buffer) => (connection.received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    return connection;
  };
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };

  it('parses what a connection pipelines one slice of a read at a time: 2 000 tiny requests in one write are not all built', async () => {
    const started: string[] = [];
    let release = (): void => undefined;
    const app = new Koa();
    app.use(async (ctx) => {
      started.push(ctx.path);
      if (ctx.path === '/slow') await new Promise<void>((resolve) => (release = resolve));
      ctx.body = ctx.path;
    });
    const logs = captureLog();
    const { server, url } = await listen(app, {}, logs.log);
    const flood = open(url);
    cleanups.push(() => {
      flood.socket.destroy();
      server.close();
    });
    flood.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => started.length === 1);
    // About 58 KB: without slicing, Node's parser builds a request object for each before any is refused.
    flood.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2_000));
    await flood.closed;

    // Past the pipelining bound the connection is closed; what was parsed of it was never started.
    const parsed = logs.lines.filter((line) => line.msg === 'request not started: its client left while it waited').length;
    expect(parsed).toBeGreaterThan(64);
    expect(parsed).toBeLessThan(64 + Math.ceil(4_096 / 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'.length) + 2);
    expect(started).toEqual(['/slow']);
    release();
    expect(await (await fetch(`${url}/new`)).text()).toBe('/new');
  });

  it('answers pipelined requests that span several read slices, every one, in order', async () => {
    const app = new Koa();
    app.use((ctx) => {
      ctx.body = `${ctx.path}:${String(ctx.get('x-pad').length)}`;
    });
    const { server, url } = await listen(app);
    const client = open(url);
    cleanups.push(() => {
      client.socket.destroy();
      server.close();
    });
    // 50 requests of about 330 bytes, written at once: four slices and more.
    const pad = 'p'.repeat(300);
    client.socket.write(Array.from({ length: 50 }, (_, i) => `GET /r/${i} HTTP/1.1\r\nHost: x\r\nX-Pad: ${pad}\r\n\r\n`).join(''));
    await until(() => (client.received.match(/HTTP\/1\.1 200/g) ?? []).length === 50);
    expect([...client.received.matchAll(/\r\n\r\n(\/r\/\d+:300)/g)].map((match) => match[1])).toEqual(
      Array.from({ length: 50 }, (_, i) => `/r/${i}:300`),
    );
  });
});

describe('a stop while a connection has requests pipelined', () => {
  // CONTRACT "Fair share": at shutdown, pipelined requests already received are answered in order; the last
  // answer carries Connection: close.
  it.each([
    ['all three received before the stop', 3],
    ['the second and third received after it, before the first is answered', 1],
  ])('answers each pipelined request received, in order; only the last answer says Connection: close (%s)', async (_, before) => {
    const held: Array<() => void> = [];
    const app = new Koa();
    app.use(async (ctx) => {
      await new Promise<void>((resolve) => held.push(resolve));
      ctx.body = ctx.path;
    });
    const { http, server, url } = await listen(app);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let closed = false;
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    cleanups.push(() => {
      socket.destroy();
      server.close();
    });
    const requests = ['/p/1', '/p/2', '/p/3'].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.write(requests.slice(0, before).join(''));
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((resolve) => setImmediate(resolve));
    };
    await until(() => held.length === 1);

    // What SIGTERM does to the HTTP server (gracefulShutdown).
    http.closeEachConnectionAfterItsAnswer();
    if (before < requests.length) {
      let parsed = 1;
      server.on('request', () => (parsed += 1));
      socket.write(requests.slice(before).join(''));
      await until(() => parsed === requests.length);
    }
    // Each request is answered as it starts, until the server closes the connection.
    await until(() => (held.shift()?.(), closed));

    const { answers } = splitAnswers(received);
    expect(answers.map((answer) => answer.body)).toEqual(['/p/1', '/p/2', '/p/3']);
    expect(answers.map((answer) => answer.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'close']);
  });
});
