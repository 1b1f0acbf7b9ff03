import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  OPERATIONS,
  phpFormParams,
  TokenUnavailableError,
  UPDATE_QUOTATION_FIELD,
  useCases,
  type TokenSource,
  type UseCase,
  type WaitTally,
} from '../../src/index.js';
import { inMemoryUpstream } from '../../src/testing/index.js';

/**
 * performance.now() moved by the test's doubles only: each step costs what the double says, so
 * the time counted as waiting is exact.
 */
function scriptedTime() {
  let now = 1_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  return (ms: number) => {
    now += ms;
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the time a request waits on others (the service-share metric)', () => {
  /** The field use case whose session read, token fetch, upstream call and audit record each take `ms` of scripted time. */
  function timedUseCase(spend: (ms: number) => void, tokens: TokenSource) {
    const upstream = inMemoryUpstream();
    upstream.respondWith(() => {
      spend(70);
      return { json: { ok: true } };
    });
    const useCase = useCases(
      {
        upstream,
        tokens,
        activityLog: {
          record() {
            spend(500);
          },
          flush: () => Promise.resolve(),
        },
      },
      OPERATIONS,
    ).get(UPDATE_QUOTATION_FIELD.name) as UseCase;
    return (waits: WaitTally) =>
      useCase({
        session: {
          currentUser() {
            spend(1_000);
            return Promise.resolve({ id: '42', name: 'Ana' });
          },
        },
        params: phpFormParams([['id', '12']]),
        idempotencyKey: 'key-1',
        waits,
      });
  }

  it('adds the token fetch and the upstream call to the tally, and none of the request’s own work', async () => {
    const spend = scriptedTime();
    const run = timedUseCase(spend, {
      token() {
        spend(30);
        return Promise.resolve('tok');
      },
    });
    const waits: WaitTally = {};
    expect((await run(waits)).kind).toBe('ok');
    expect(waits.waitedMs).toBe(100);
  });

  it('counts a wait that ended in a failure, and adds to what the tally already holds', async () => {
    const spend = scriptedTime();
    const run = timedUseCase(spend, {
      token() {
        spend(40);
        return Promise.reject(new TokenUnavailableError('identity service down'));
      },
    });
    const waits: WaitTally = { waitedMs: 5 };
    expect((await run(waits)).kind).toBe('token-unavailable');
    expect(waits.waitedMs).toBe(45);
  });
});
