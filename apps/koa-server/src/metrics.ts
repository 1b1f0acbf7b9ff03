import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { UpstreamError, type SessionUnavailableReason, type Upstream, type UpstreamErrorKind } from '@cotizaciones/core';
import type { ActivityLogStats, BufferedActivityLog } from '@cotizaciones/adapters';
import { memoryLimitBytes } from './memory-limit.js';

export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'endpoint' | 'method' | 'outcome'>;
  readonly requestSeconds: Histogram<'endpoint'>;
  readonly serviceSeconds: Histogram<'endpoint'>;
  readonly upstreamSeconds: Histogram<'path'>;
  readonly upstreamFailures: Counter<'kind'>;
  readonly sessionStoreErrors: Counter<'cause'>;
}

/** What the metrics read of the activity log, at each scrape only. */
export type ActivityLogReadings = Pick<BufferedActivityLog, 'stats' | 'oldestPendingMs' | 'deadLetterBytes'>;

/** Buckets of the request histograms: the whole answer and the service's own share of it, comparable bucket by bucket. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics of the service, on a registry of its own (tests create several services).
 * `activityStoreUp`: whether the last readiness check found the activity-log store answering.
 */
export function createMetrics(activity: ActivityLogReadings, activityStoreUp: () => boolean): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const activityStats = () => activity.stats();
  const fromStats = (name: string, help: string, pick: (stats: ActivityLogStats) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        // The activity log keeps its own monotonic counts; mirror them.
        this.reset();
        this.inc(pick(activityStats()));
      },
    });
  fromStats('activity_log_written_total', 'Activity-log entries written to the store.', (s) => s.written);
  fromStats('activity_log_retried_total', 'Failed activity-log batch writes that were retried.', (s) => s.retried);
  fromStats('activity_log_dropped_total', 'Activity-log entries dropped because the queue was full.', (s) => s.dropped);
  fromStats(
    'activity_log_spilled_total',
    'Activity-log entries set aside in the dead-letter file because the store could not take them in time.',
    (s) => s.spilled,
  );
  fromStats(
    'activity_log_dead_lettered_total',
    'Activity-log entries the store refused, set aside in the dead-letter file.',
    (s) => s.deadLettered,
  );
  fromStats(
    'activity_log_dead_letter_dropped_total',
    'Activity-log entries not set aside because the dead-letter file was at ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES (dropped).',
    (s) => s.deadLetterDropped,
  );
  fromStats(
    'activity_log_dead_letter_failed_total',
    'Activity-log entries the dead-letter file could not take (each written whole to stderr instead).',
    (s) => s.deadLetterFailed,
  );
  fromStats(
    'activity_log_stderr_total',
    'Activity-log entries written whole to stderr as dead-letter lines: neither the store, the spool nor the dead-letter file could take them.',
    (s) => s.logged,
  );
  fromStats('activity_log_spooled_total', 'Activity-log entries appended to the spool before their answer.', (s) => s.spooled);
  fromStats(
    'activity_log_spool_skipped_total',
    'Activity-log entries the spool could not take (at ACTIVITY_LOG_SPOOL_MAX_BYTES, or a disk error): held in memory only.',
    (s) => s.spoolSkipped,
  );
  fromStats(
    'activity_log_adopted_total',
    'Activity-log entries taken over at start from the spool segments a stopped process left.',
    (s) => s.adopted,
  );
  const fromStatsGauge = (name: string, help: string, pick: (stats: ActivityLogStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(activityStats()));
      },
    });
  fromStatsGauge('activity_log_queue_depth', 'Activity-log entries waiting to be written.', (s) => s.queued);
  new Gauge({
    name: 'activity_log_oldest_pending_seconds',
    help: 'Age of the oldest activity-log entry not yet in the store (queued, being retried, or taken over from the spool and still waiting there); 0 when none waits.',
    registers: [registry],
    collect() {
      this.set(activity.oldestPendingMs() / 1000);
    },
  });
  fromStatsGauge(
    'activity_log_spool_bytes',
    "Bytes in the activity log's spool segments: this process's own and those it took over at start.",
    (s) => s.spoolBytes,
  );
  fromStatsGauge(
    'activity_log_spool_max_bytes',
    "The spool's bound, ACTIVITY_LOG_SPOOL_MAX_BYTES: past it entries are held in memory only (0 without a spool).",
    (s) => s.spoolMaxBytes,
  );
  new Gauge({
    name: 'activity_log_dead_letter_bytes',
    help: 'Size of the dead-letter file (ACTIVITY_LOG_DEAD_LETTER) at the scrape.',
    registers: [registry],
    // One stat per scrape: the replay and other processes change the file too. A stat that fails keeps
    // the last value rather than failing the whole scrape; the file's appends report what is wrong with it.
    async collect() {
      const bytes = await activity.deadLetterBytes().catch(() => undefined);
      if (bytes !== undefined) this.set(bytes);
    },
  });
  fromStatsGauge(
    'activity_log_dead_letter_max_bytes',
    "The dead-letter file's bound, ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES: past it entries the store refuses are dropped.",
    (s) => s.deadLetterMaxBytes,
  );
  new Gauge({
    name: 'process_memory_limit_bytes',
    help: "The memory limit the process runs under (its cgroup's, as process.constrainedMemory() reads it); 0 when there is none.",
    registers: [registry],
    collect() {
      this.set(memoryLimitBytes());
    },
  });
  new Gauge({
    name: 'activity_log_store_up',
    help: 'Whether the last readiness check found the activity-log store answering (1) or not, or no check has finished (0).',
    registers: [registry],
    collect() {
      this.set(activityStoreUp() ? 1 : 0);
    },
  });
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'Requests to the endpoints by endpoint, method and outcome.',
      labelNames: ['endpoint', 'method', 'outcome'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer a request to an endpoint.',
      labelNames: ['endpoint'],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    }),
    serviceSeconds: new Histogram({
      name: 'http_request_service_seconds',
      help: "The service's own share of answering a request to an endpoint: its duration less the time spent waiting on the upstream and the token source.",
      labelNames: ['endpoint'],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Time of each call to the upstream quotation API.',
      labelNames: ['path'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    upstreamFailures: new Counter({
      name: 'upstream_failures_total',
      help: 'Upstream calls without a usable answer, by kind: unreachable, timeout, connection, invalid_body, http_status.',
      labelNames: ['kind'],
      registers: [registry],
    }),
    sessionStoreErrors: sessionStoreErrors(registry),
  };
}

/** The causes of session_store_errors_total, each its own series from the start (an alert's `rate()` needs a first sample). */
const SESSION_ERROR_CAUSES: readonly SessionUnavailableReason[] = ['unreachable', 'busy', 'locked'];

function sessionStoreErrors(registry: Registry): Counter<'cause'> {
  const counter = new Counter({
    name: 'session_store_errors_total',
    help: 'Requests answered 503 because the caller could not be identified, by cause: unreachable (the session store cannot be reached), busy (PHP lock waiters at their bound), locked (PHP held the session lock past the wait bound).',
    labelNames: ['cause'],
    registers: [registry],
  });
  for (const cause of SESSION_ERROR_CAUSES) counter.labels(cause).inc(0);
  return counter;
}

/** The `kind` label of upstream_failures_total for each of the core's upstream failures (http_status: an answer of 400 or more). */
const FAILURE_KIND: Readonly<Record<UpstreamErrorKind, string>> = {
  unreachable: 'unreachable',
  timeout: 'timeout',
  connection: 'connection',
  'invalid-body': 'invalid_body',
};

/** The upstream port, timed and counted: a decorator, so every client is measured the same way. */
export function measuredUpstream(upstream: Upstream, metrics: Metrics): Upstream {
  // One labelled series per path, looked up once: prom-client would hash the labels on every call.
  const timers = new Map<string, ReturnType<Metrics['upstreamSeconds']['labels']>>();
  return {
    async post(request) {
      let timer = timers.get(request.path);
      // Bounded: the paths are the use cases' own constants.
      if (!timer) timers.set(request.path, (timer = metrics.upstreamSeconds.labels(request.path)));
      const started = performance.now();
      try {
        const reply = await upstream.post(request);
        if (reply.status >= 400) metrics.upstreamFailures.inc({ kind: 'http_status' });
        return reply;
      } catch (error) {
        if (error instanceof UpstreamError) metrics.upstreamFailures.inc({ kind: FAILURE_KIND[error.kind] });
        throw error;
      } finally {
        timer.observe((performance.now() - started) / 1000);
      }
    },
  };
}
