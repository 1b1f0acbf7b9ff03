import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Outcome } from '@cotizaciones/core';
import type { Readiness } from '@cotizaciones/runtime';
import { startApp } from './support/app.js';
import { splitAnswers } from './support/raw-socket.js';
import { FIELD_PATH } from './support/service.js';

/** A raw keep-alive connection: what the server wrote, and a promise of its next answers. */
function open(url: string) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  const connection = { socket, received: '', answers: () => splitAnswers(connection.received).answers };
  socket.on('data', (chunk: Buffer) => (connection.received += chunk.toString('latin1')));
  return connection;
}

const OK_OUTCOME: Outcome = { reply: { ok: true }, kind: 'ok' };

const untilTrue = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
};

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The number of connections whose requests wait in line when the probe arrives. */
const BUSY = 300;

describe('the probes ahead of the fair-share line', () => {
  it.each([
    ['/healthz', 'healthy', { checked: true, reasons: [], degraded: [] }, 200, '{"ok":true}'],
    [
      '/readyz',
      'degraded',
      {
        checked: true,
        reasons: [],
        degraded: [{ summary: 'activity log: unavailable', detail: 'activity log: connect ECONNREFUSED 10.0.0.7:5432' }],
      },
      200,
      '{"ok":true,"degraded":["activity log: unavailable"]}',
    ],
    [
      '/readyz',
      'not ready',
      {
        checked: true,
        reasons: [{ summary: 'session store: unavailable', detail: 'session store: connect ECONNREFUSED 10.0.0.7:6379' }],
        degraded: [],
      },
      503,
      '{"ok":false,"reasons":["session store: unavailable"]}',
    ],
  ] as Array<[string, string, Readiness, number, string]>)(
    `GET %s (%s) is answered while most of ${BUSY} endpoint requests read in the same turn have not started`,
    async (path, _state, readiness, status, body) => {
      let started = 0;
      const held: Array<() => void> = [];
      // Each request that reaches the use case is counted, and held until the end: none is answered.
      const updateQuotationField = () => {
        started += 1;
        return new Promise<Outcome>((resolve) => held.push(() => resolve(OK_OUTCOME)));
      };
      const app = await startApp({}, { updateQuotationField, readiness: () => readiness }, { maxConnections: 2_000 });
      const connections = Array.from({ length: BUSY + 1 }, () => open(app.url));
      cleanups.push(() => {
        for (const connection of connections) connection.socket.destroy();
        for (const release of held) release();
        app.close();
      });
      // Every connection accepted and served once first (the server accepts one connection per turn).
      for (const connection of connections) connection.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await untilTrue(() => connections.every((connection) => connection.received.endsWith('{"ok":true}')));
      const probe = connections.pop()!;

      // Written in this one tick: the server reads them all in one I/O phase, the probe last.
      const form = 'id=12&field=estado&value=aprobada';
      const post = `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`;
      for (const connection of connections) connection.socket.write(post);
      probe.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);

      let startedWhenAnswered = -1;
      probe.socket.on('data', () => (startedWhenAnswered = started));
      await untilTrue(() => probe.answers().length === 2);
      const answer = probe.answers()[1]!;
      expect(answer.status).toBe(status);
      expect(answer.body).toBe(body);
      expect(answer.headers).toMatchObject({
        'content-type': 'application/json; charset=UTF-8',
        'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
        pragma: 'no-cache',
        expires: '0',
        'x-content-type-options': 'nosniff',
      });
      // Behind the line, the probe would have started after every one of them.
      expect(startedWhenAnswered).toBeLessThan(BUSY / 2);
      expect(connections.filter((connection) => connection.answers().length > 1)).toHaveLength(0);

      // The line itself is unchanged: every one of them starts.
      await untilTrue(() => started === BUSY);
    },
  );

  it('a probe pipelined behind a request on its connection waits its turn: answers stay in order', async () => {
    let release = (): void => undefined;
    const updateQuotationField = () => new Promise<Outcome>((resolve) => (release = () => resolve(OK_OUTCOME)));
    const app = await startApp({}, { updateQuotationField });
    const connection = open(app.url);
    cleanups.push(() => {
      connection.socket.destroy();
      app.close();
    });
    const form = 'id=12&field=estado&value=aprobada';
    connection.socket.write(
      `POST ${FIELD_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}` +
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    // A newcomer's probe on its own connection is answered while that connection's first request is held.
    const newcomer = open(app.url);
    cleanups.push(() => newcomer.socket.destroy());
    newcomer.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await untilTrue(() => newcomer.answers().length === 1);
    expect(connection.received).toBe('');

    release();
    await untilTrue(() => connection.answers().length === 2);
    expect(connection.answers().map((answer) => answer.body)).toEqual(['{"ok":true}', '{"ok":true}']);
    // Taken by the line, not the server: the request frame gave it an id.
    expect(connection.answers()[1]!.headers['x-request-id']).toBeDefined();
    expect(newcomer.answers()[0]!.headers['x-request-id']).toBeUndefined();
  });
});
