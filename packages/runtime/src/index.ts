// What every channel of the service shares besides the core: the adapters' configuration from the
// environment, opening the adapters it names, and the log. A channel adds only its own settings.
export { ConfigError, configProblem, throwIfProblems, type ConfigProblems } from './config-problems.js';
export { flag, httpUrl, integer, presentVariables, readVariables, reporter, secret, type Environment, type Report } from './read-env.js';
export { loadRuntimeConfig, readRuntimeConfig, type RuntimeConfig, type TokenSourceConfig } from './runtime-config.js';
export { readActivityLogConfig, type ActivityLogConfig } from './activity-log-config.js';
export { openAdapters, type Adapters } from './open-adapters.js';
export { upstreamTarget } from './open-upstream.js';
export { openSessionStore } from './open-sessions.js';
export { readSessionConfig, type SessionConfig } from './session-config.js';
export { RECORD_BACKENDS, recordBackend, REDIS_RECORDS, type RecordBackend } from './record-backends.js';
export { failedChecks, plainFinding, readinessCheck, type Finding } from './readiness-check.js';
export { NOT_CHECKED, readinessMonitor, type Readiness, type ReadinessMonitor } from './readiness-monitor.js';
export { createLog, errorSummary, unredactedLog, type Log } from './redacting-log.js';
export { stdoutSink, type StdoutSink } from './stdout-sink.js';
export { onStopSignals, SAME_SIGNAL_MS } from './stop-signals.js';
export { demoUpstream, DEMO_TOKEN } from './demo-upstream.js';
export { readTracingConfig, type TracingConfig } from './tracing-config.js';
export { openTracing, type Tracing } from './tracing.js';
export { spanSettled } from './span-settled.js';
