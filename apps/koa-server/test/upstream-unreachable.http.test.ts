import net from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, form, startService } from './support/service.js';

/** Where nothing listens: each connection is refused, so nothing of a request is sent. */
const REFUSED_PORT = 1;

/** The connections this process tries to open to `port` from now on (every client opens them with Socket#connect). */
function connectionsTo(port: number): () => number {
  const connect = vi.spyOn(net.Socket.prototype, 'connect');
  onTestFinished(() => connect.mockRestore());
  const portOf = (args: unknown[]): number | undefined => {
    const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    return typeof first === 'object' && first !== null ? Number((first as { port?: unknown }).port) : undefined;
  };
  return () => connect.mock.calls.filter((args) => portOf(args) === port).length;
}

// CONTRACT "Upstream": a failure before anything was sent may be retried with backoff by the bulk CLI
// (within its --max-wait); the web endpoints answer at once.
describe.each(['got', 'undici'])('an upstream that refuses connections (UPSTREAM_CLIENT=%s)', (client) => {
  it('each endpoint answers its failure message after one attempt, not retried; no log entry', async () => {
    const svc = await startService({ UPSTREAM_CLIENT: client, UPSTREAM_BASE_URL: `http://127.0.0.1:${REFUSED_PORT}` });
    onTestFinished(() => svc.close());
    const cookie = await svc.signIn();
    const attempts = connectionsTo(REFUSED_PORT);
    await expectAnswer(
      await svc.post(FIELD_PATH, form({ id: '5', field: 'estado', value: 'x' }), { cookie }),
      200,
      '{"ok":false,"msg":"No se pudo actualizar la cotización."}',
    );
    expect(attempts()).toBe(1);
    await expectAnswer(
      await svc.post(ITEM_PATH, form({ id: '6', delete: '' }), { cookie }),
      200,
      '{"ok":false,"msg":"No se pudo actualizar el ítem."}',
    );
    expect(attempts()).toBe(2);
    expect(await svc.rows()).toEqual([]);
  });
});
