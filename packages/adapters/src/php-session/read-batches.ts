export interface ReadBatchesOptions<K, V> {
  /** Keys sent in one batch at most. */
  readonly maxBatch: number;
  /** Batches under way at once; keys asked for meanwhile wait and go together in the next. */
  readonly maxInFlight: number;
  /** How long a key may wait for its batch to start; then it fails with `timedOut()`. */
  readonly waitMs: number;
  readonly timedOut: () => Error;
  /** Reads the keys in one round trip: a value for each, in their order. */
  run(keys: readonly K[]): Promise<readonly V[]>;
}

export interface ReadBatches<K, V> {
  get(key: K): Promise<V>;
}

interface Waiting<K, V> {
  readonly key: K;
  readonly since: number;
  resolve(value: V): void;
  reject(error: unknown): void;
}

/**
 * Reads of a remote store sent together: the keys asked for in one turn of the event loop, or while
 * `maxInFlight` batches are under way, go in one round trip instead of one each. A round trip's
 * write, and the wake-up of the server it causes, costs more than the read itself. A failed batch
 * fails each of its reads. One timer watches every waiting key.
 */
export function readBatches<K, V>(options: ReadBatchesOptions<K, V>): ReadBatches<K, V> {
  let waiting: Array<Waiting<K, V>> = [];
  let inFlight = 0;
  let scheduled = false;
  let watch: NodeJS.Timeout | undefined;

  function send(): void {
    scheduled = false;
    while (waiting.length > 0 && inFlight < options.maxInFlight) {
      const batch = waiting.splice(0, options.maxBatch);
      inFlight += 1;
      options.run(batch.map((entry) => entry.key)).then(
        (values) => {
          inFlight -= 1;
          for (const [i, entry] of batch.entries()) entry.resolve(values[i] as V);
          send();
        },
        (error: unknown) => {
          inFlight -= 1;
          for (const entry of batch) entry.reject(error);
          send();
        },
      );
    }
  }

  /** Fails the keys that waited past `waitMs` for a batch (every batch under way hung). */
  function expire(): void {
    watch = undefined;
    const now = performance.now();
    const late = waiting.filter((entry) => now - entry.since >= options.waitMs);
    if (late.length > 0) {
      waiting = waiting.filter((entry) => now - entry.since < options.waitMs);
      for (const entry of late) entry.reject(options.timedOut());
    }
    if (waiting.length > 0) watch = setTimeout(expire, options.waitMs - (now - waiting[0]!.since)).unref();
  }

  return {
    get(key) {
      return new Promise<V>((resolve, reject) => {
        waiting.push({ key, since: performance.now(), resolve, reject });
        watch ??= setTimeout(expire, options.waitMs).unref();
        if (!scheduled && inFlight < options.maxInFlight) {
          scheduled = true;
          setImmediate(send);
        }
      });
    },
  };
}
