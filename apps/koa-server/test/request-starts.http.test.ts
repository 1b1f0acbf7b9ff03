import { Agent, request } from 'node:http';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from './support/service.js';

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
