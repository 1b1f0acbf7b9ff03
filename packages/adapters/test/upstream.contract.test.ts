import { inMemoryUpstream } from '../src/index.js';
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
      if ('drop' in current || 'reset' in current) throw new Error('dropped');
      if ('hang' in current) return new Promise(() => undefined);
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
    delivered: () => upstream.calls.map(({ path, payload, token }) => ({ path, payload, token })),
    close: () => Promise.resolve(),
  });
});

for (const [name, create] of [
  ['got', gotUpstream],
  ['undici', undiciUpstream],
] as const) {
  testUpstream(`${name} over HTTP`, async () => {
    const stub = await startStubUpstream();
    const upstream = create({ baseUrl: stub.url, timeoutMs, maxResponseBytes });
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
        })),
      close: async () => {
        upstream.close();
        await stub.close();
      },
    };
  });
}
