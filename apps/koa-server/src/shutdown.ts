import type { Server } from 'node:http';
import type { Service } from './compose.js';
import type { ServerLog, SonicBoom } from './server-log.js';

interface Shutdown {
  readonly server: Server;
  readonly service: Service;
  readonly log: ServerLog;
  readonly stdout: SonicBoom;
  readonly timeoutMs: number;
}

/**
 * On the first signal: stop accepting, let the requests in flight finish,
 * write every pending activity entry, exit 0. A second signal, or the time
 * limit, exits 1 after giving the activity log one more second.
 */
export function gracefulShutdown({ server, service, log, stdout, timeoutMs }: Shutdown): (signal: string) => void {
  let stopping = false;

  const exit = (code: number) => {
    stdout.flushSync();
    process.exit(code);
  };
  const abort = (reason: string) => {
    log.error({ reason, ...service.activityLog.stats() }, 'shutdown cut short: writing what can be written');
    void Promise.race([service.activityLog.flush(), new Promise((resolve) => setTimeout(resolve, 1_000))]).finally(() => {
      log.error(service.activityLog.stats(), 'exiting before every activity entry was written');
      exit(1);
    });
  };

  return (signal) => {
    if (stopping) return abort(`second ${signal}`);
    stopping = true;
    service.drain();
    log.info({ signal }, 'shutting down: finishing requests in flight');
    const started = Date.now();
    setTimeout(() => abort(`no clean stop within ${timeoutMs} ms`), timeoutMs).unref();
    // Stop accepting now; keep-alive connections close as soon as they are idle.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const idleCloser = setInterval(() => server.closeIdleConnections(), 50);
    server.closeIdleConnections();
    void closed
      .then(() => {
        clearInterval(idleCloser);
        return service.close(Math.max(0, timeoutMs - (Date.now() - started)));
      })
      .then(() => {
        log.info(service.activityLog.stats(), 'stopped');
        exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        exit(1);
      });
  };
}
