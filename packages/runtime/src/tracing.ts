import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type * as SdkModule from '@opentelemetry/sdk-trace-node';
import type { Log } from './redacting-log.js';
import type { Sampler as SamplerName, TracingConfig } from './tracing-config.js';

/** Tracing as a channel holds it: on or off, and how to send what is pending at a stop. */
export interface Tracing {
  readonly enabled: boolean;
  /** Exports the spans still pending, within `timeoutMs` whatever the collector does, and stops. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** The SDK's own complaints (an unreachable collector, mostly): at most one log line a minute. */
const DIAG_EVERY_MS = 60_000;

/**
 * Starts the OpenTelemetry SDK the configuration asks for, registered as the global tracer provider
 * with the W3C trace-context propagator. Off, nothing is loaded: `@opentelemetry/api` then hands
 * out no-op spans, and every call site costs a function call.
 */
export async function openTracing(config: TracingConfig, log: Log, serviceName: string): Promise<Tracing> {
  if (!config.enabled) return { enabled: false, shutdown: () => Promise.resolve() };
  const [{ W3CTraceContextPropagator }, { resourceFromAttributes }, sdk, exporter] = await Promise.all([
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    config.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);

  let lastSaid = -Infinity;
  let unsaid = 0;
  const say = (message: string) => {
    const now = Date.now();
    if (now - lastSaid < DIAG_EVERY_MS) {
      unsaid += 1;
      return;
    }
    lastSaid = now;
    // The SDK's messages name the endpoint, never the headers.
    log.warn({ repeated: unsaid }, `tracing: ${message}`);
    unsaid = 0;
  };
  const quiet = () => undefined;
  diag.setLogger({ error: say, warn: say, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);

  const sampler = samplerOf(sdk, config.sampler, config.ratio);
  const provider = new sdk.NodeTracerProvider({
    resource: resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName ?? serviceName }),
    sampler,
    spanProcessors: [
      new sdk.BatchSpanProcessor(
        new exporter.OTLPTraceExporter({ url: config.url, headers: { ...config.headers }, timeoutMillis: config.timeoutMs }),
        {
          // Spans wait at most a second; a collector that is down costs a bounded queue, never a request.
          scheduledDelayMillis: 1_000,
          maxQueueSize: 4_096,
        },
      ),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return {
    enabled: true,
    async shutdown(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch((error: unknown) => say(String(error))),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
      // Unregistered, so that the process (a test's, say) can start tracing again.
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}

type Sdk = typeof SdkModule;

function samplerOf(sdk: Sdk, name: SamplerName, ratio: number) {
  const root = name.endsWith('always_on')
    ? new sdk.AlwaysOnSampler()
    : name.endsWith('always_off')
      ? new sdk.AlwaysOffSampler()
      : new sdk.TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}
