import { describe, expect, it } from 'vitest';
import { readBatches, type ReadBatchesOptions } from '../../src/php-session/read-batches.js';

interface Sent {
  readonly keys: readonly string[];
  answer(values?: readonly string[]): void;
  fail(error: Error): void;
}

/** Batches whose round trips the test answers itself: every batch sent is in `sent`. */
function batches(over: Partial<ReadBatchesOptions<string, string>> = {}) {
  const sent: Sent[] = [];
  const reads = readBatches<string, string>({
    maxBatch: 3,
    maxInFlight: 1,
    waitMs: 60_000,
    timedOut: () => new Error('waited too long'),
    run: (keys) =>
      new Promise((resolve, reject) =>
        sent.push({ keys, answer: (values) => resolve(values ?? keys.map((key) => `value of ${key}`)), fail: reject }),
      ),
    ...over,
  });
  return { reads, sent };
}

/** Until `sent` holds `count` batches. */
async function batchesSent(sent: readonly Sent[], count: number): Promise<void> {
  while (sent.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('reads sent in batches', () => {
  it('sends the keys asked for at once together, up to maxBatch each, and gives each read its own value', async () => {
    const { reads, sent } = batches({ maxInFlight: 2 });
    const answers = Promise.all(['a', 'b', 'c', 'd'].map((key) => reads.get(key)));
    await batchesSent(sent, 2);
    expect(sent.map((batch) => batch.keys)).toEqual([['a', 'b', 'c'], ['d']]);
    sent[1]!.answer();
    sent[0]!.answer();
    expect(await answers).toEqual(['value of a', 'value of b', 'value of c', 'value of d']);
  });

  it('keys asked for while maxInFlight batches are under way wait, and go together once one is answered', async () => {
    const { reads, sent } = batches();
    const first = reads.get('a');
    await batchesSent(sent, 1);
    const later = Promise.all(['b', 'c'].map((key) => reads.get(key)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(1);
    sent[0]!.answer();
    expect(await first).toBe('value of a');
    await batchesSent(sent, 2);
    expect(sent[1]!.keys).toEqual(['b', 'c']);
    sent[1]!.answer();
    expect(await later).toEqual(['value of b', 'value of c']);
  });

  it('a failed batch fails each of its reads; the next batch is sent and answered', async () => {
    const { reads, sent } = batches();
    const failed = Promise.allSettled(['a', 'b'].map((key) => reads.get(key)));
    await batchesSent(sent, 1);
    const next = reads.get('c');
    sent[0]!.fail(new Error('unreachable'));
    expect((await failed).map((result) => result.status === 'rejected' && (result.reason as Error).message)).toEqual([
      'unreachable',
      'unreachable',
    ]);
    await batchesSent(sent, 2);
    sent[1]!.answer();
    expect(await next).toBe('value of c');
  });

  it('a key that waits past waitMs behind batches that never answer fails with timedOut, its batch never sent', async () => {
    const { reads, sent } = batches({ waitMs: 30 });
    const hung = reads.get('a');
    await batchesSent(sent, 1);
    await expect(reads.get('b')).rejects.toThrow('waited too long');
    sent[0]!.answer();
    expect(await hung).toBe('value of a');
    // Nothing is left to send: 'b' went with its timeout.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(1);
  });
});
