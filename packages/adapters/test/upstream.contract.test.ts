import { inMemoryUpstream } from '@cotizaciones/core/testing';
import { gotUpstream } from '../src/got.js';
import { undiciUpstream } from '../src/undici.js';
import { startStubUpstream, testUpstream, type UpstreamScenario } from '../src/testing/index.js';

const timeoutMs = 300;
const maxResponseBytes = 64 * 1024;

testUpstream('in-memory', () => {
  let scenario: UpstreamScenario = { json: { ok: true } };
  const upstream = inMemoryUpstream({
    timeoutMs,
    maxResponseBytes,
    respond: () => {
      const current = scenario;
      if ('hang' in current) return new Promise(() => undefined);
      if ('drop' in current || 'reset' in current || 'dripMs' in current) throw new Error('a network scenario, for network adapters only');
      return current;
    },
  });
  return Promise.resolve({
    upstream,
    timeoutMs,
    maxResponseBytes,
    answer: (next) => {
      scenario = next;
    },
    delivered: () => upstream.calls.map(({ path, payload, token, idempotencyKey }) => ({ path, payload, token, idempotencyKey })),
    close: () => Promise.resolve(),
  });
  // No connection in memory: the `network` claim's tests show as skipped.
});

for (const [name, create] of [
  ['got', gotUpstream],
  ['undici', undiciUpstream],
] as const) {
  testUpstream(
    `${name} over HTTP`,
    async () => {
      const stub = await startStubUpstream();
      const upstream = create({ baseUrl: stub.url, timeoutMs, maxResponseBytes });
      const stalled = create({ baseUrl: stub.stalledConnectUrl, timeoutMs, maxResponseBytes });
      return {
        upstream,
        timeoutMs,
        maxResponseBytes,
        answer: (next) => stub.answer(next),
        delivered: () =>
          stub.received.map((request) => ({
            path: request.path,
            payload: JSON.parse(request.body) as unknown,
            token: (request.headers.authorization ?? '').replace(/^Bearer /, ''),
            idempotencyKey: String(request.headers['idempotency-key']),
          })),
        stalledConnection: () => stalled,
        close: async () => {
          upstream.close();
          stalled.close();
          await stub.close();
        },
      };
    },
    { network: true },
  );
}
