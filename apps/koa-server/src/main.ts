import { once } from 'node:events';
import { createLog, onStopSignals, stdoutSink } from '@cotizaciones/runtime';
import { ConfigError, loadConfig } from './config.js';
import { compose } from './compose.js';
import { createHttpServer } from './http-server.js';
import { metricsTokenHolders, probesAheadOfLine } from './http/probes.js';
import { gracefulShutdown } from './shutdown.js';

const stdout = stdoutSink();

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(error.problems.map((line) => `configuration error: ${line}\n`).join(''));
    process.exit(1);
  }
  const log = createLog(config.logLevel, stdout);
  if (config.sessionKeysGenerated) log.warn('SESSION_KEYS is unset: sessions are signed with a random key and end with this process');
  if (config.metrics === 'off')
    log.warn('METRICS_TOKEN is unset in production: GET /metrics is not served (404); set it to scrape the metrics');
  const service = await compose(config, log);
  const http = createHttpServer(
    service.app.callback(),
    config.httpLimits,
    log,
    probesAheadOfLine(service.readiness, metricsTokenHolders(config.metrics)),
  );
  http.server.listen(config.port, config.host);
  await once(http.server, 'listening');
  const address = http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shutdown = gracefulShutdown({ http, service, log, stdout, drainMs: config.shutdownDrainMs, timeoutMs: config.shutdownTimeoutMs });
  // Before the line that says where it listens: a supervisor may signal as soon as it reads it.
  onStopSignals(
    (signal) => shutdown.stop(signal),
    (signal) => shutdown.abort(`second ${signal}`),
  );
  log.info({ url: `http://${config.host}:${port}${config.basePath}`, ...service.adapters }, 'listening');
  void stdout.flush();
}

main().catch(async (error: unknown) => {
  await Promise.race([stdout.flush(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
