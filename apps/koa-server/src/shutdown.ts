import { closeListener } from './close-listener.js';
import type { HttpServer } from './http-server.js';
import type { Service } from './compose.js';
import type { Log, StdoutSink } from '@cotizaciones/runtime';

interface Shutdown {
  readonly http: HttpServer;
  readonly service: Service;
  readonly log: Log;
  readonly stdout: StdoutSink;
  /** How long to keep accepting (answering with `Connection: close`) so a balancer notices. */
  readonly drainMs: number;
  /** How long the whole stop may take. */
  readonly timeoutMs: number;
}

/** How often the stop looks at its connections. */
const SWEEP_MS = 10;
/** How long a connection must stay idle, nothing read, before the stop closes it. */
const IDLE_MS = 500;
/** After the drain, how long to wait for a moment with no connection open before closing the listener anyway (clients that keep connecting). */
const QUIET_WAIT_MS = 1_000;
const CLOSE_RESERVE_MS = 2_000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Resolves in the check phase, just after the event loop has read whatever had arrived. */
const afterPoll = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * On the first signal: /readyz turns 503; for `drainMs` the server keeps accepting and
 * answering, every answer with `Connection: close`; then it stops accepting, answers
 * every request it received, writes every pending activity entry and exits 0.
 *
 * It never destroys a connection that carries a request, parsed or not: connections close
 * themselves after their answer, and an idle one is closed only once nothing has been read
 * from it for half a second (a keep-alive connection between requests, a client that
 * connected and has not sent yet). The listener is closed so that no connection waiting
 * in the kernel's accept queue is reset ({@link closeListener}).
 *
 * A second signal (a second or more after the first: see onStopSignals), or the time limit, exits 1
 * after giving the activity log one more second.
 */
export function gracefulShutdown({ http, service, log, stdout, drainMs, timeoutMs }: Shutdown): {
  stop(signal: string): void;
  abort(reason: string): void;
} {
  let stopping = false;
  const deadline = () => started + timeoutMs;
  let started = 0;

  // Whatever stdout does (closed pipe, stalled reader), the exit waits for it a bounded time: what is
  // left of the time limit, or `leastMs` (a stop cut short is already past it, and its lines say why).
  const exit = async (code: number, leastMs = 100) => {
    await Promise.race([stdout.flush(), delay(Math.max(leastMs, Math.min(1_000, deadline() - Date.now())))]);
    process.exit(code);
  };
  let aborted = false;
  const abort = (reason: string) => {
    // Once: a third signal, or the time limit after a second one, has nothing left to cut.
    if (aborted) return;
    aborted = true;
    log.error(
      { reason, ...service.activityLog.stats() },
      'shutdown cut short: answering what waits on the upstream, writing what can be written',
    );
    // Answered with the failure message, not cut: a cut POST is one nginx would send to another instance.
    service.cutUpstreamCalls();
    void Promise.race([service.activityLog.flush(), delay(1_000)]).finally(() => {
      log.error(service.activityLog.stats(), 'exiting before every activity entry was written');
      void exit(1, 1_000);
    });
  };

  let listening = true;
  const stopAccepting = async () => {
    const how = await closeListener(http.server, () => http.connections().open, QUIET_WAIT_MS);
    listening = false;
    log.info({ how, open: http.connections().open }, 'stopped accepting');
  };
  // Until the listener is closed new connections may come: only then can "none open" mean done.
  const finishConnections = async () => {
    while (listening || http.connections().open > 0) {
      await delay(SWEEP_MS);
      await afterPoll();
      const closed = http.closeIdle(IDLE_MS);
      if (closed > 0) log.info({ closed, idleMs: IDLE_MS }, 'closed idle connections');
    }
  };

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    started = Date.now();
    service.drain();
    http.closeEachConnectionAfterItsAnswer();
    log.info({ signal, drainMs }, `${signal}: shutting down, answering with Connection: close`);
    setTimeout(() => abort(`no clean stop within ${timeoutMs} ms`), timeoutMs).unref();
    void delay(drainMs)
      .then(async () => {
        await Promise.all([stopAccepting(), finishConnections()]);
        log.info({ signal }, 'every request answered; writing pending activity entries');
        // Time kept back for what follows the flush when the store is down: entries set aside, the store closed, stdout.
        const left = deadline() - Date.now();
        await service.close(Math.max(left / 2, left - CLOSE_RESERVE_MS));
      })
      .then(async () => {
        log.info({ signal, ...service.activityLog.stats(), logBytesDropped: stdout.droppedBytes() }, `stopped by ${signal}`);
        await exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        void exit(1);
      });
  };
  return { stop, abort };
}
