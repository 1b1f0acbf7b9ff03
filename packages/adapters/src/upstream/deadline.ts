/**
 * One total time limit for one upstream call (connect, send, headers and the whole body): a single
 * timer, cleared when the call settles. It is also the abort `signal` undici accepts (any object
 * with `on`/`once`/`removeListener`): an AbortController per request costs far more than
 * this one timer.
 */
export class Deadline {
  aborted = false;
  reason: Error | undefined = undefined;
  private listener: (() => void) | undefined = undefined;
  private readonly timer: NodeJS.Timeout;

  /** `onExpire` learns first (to fail the call at once), then the client is told to abort. */
  constructor(ms: number, timeoutError: () => Error, onExpire: (error: Error) => void) {
    this.timer = setTimeout(() => {
      const error = timeoutError();
      this.aborted = true;
      this.reason = error;
      onExpire(error);
      this.listener?.();
    }, ms);
  }

  on(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(): this {
    this.listener = undefined;
    return this;
  }

  /** The call settled: no timer left behind. */
  clear(): void {
    clearTimeout(this.timer);
  }
}
