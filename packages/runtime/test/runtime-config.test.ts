import { describe, expect, it } from 'vitest';
import { ConfigError, loadRuntimeConfig, readSessionConfig, type ConfigProblems } from '../src/index.js';

function problems(env: Record<string, string>): readonly string[] {
  try {
    loadRuntimeConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('loadRuntimeConfig: the adapters a channel opens, from the environment', () => {
  it('reads no HTTP variable: a channel without a listener is not asked for one', () => {
    expect(loadRuntimeConfig({ PORT: 'not a port', SESSION_KEYS: 'short' })).toMatchObject({
      upstreamBaseUrl: undefined,
      tokenSource: { kind: 'static', token: 'demo-token' },
    });
  });

  it('keeps the rules that go with the adapters: one token source, production guards, no secret printed', () => {
    expect(
      problems({
        NODE_ENV: 'production',
        UPSTREAM_TOKEN: 'SECRET-1',
        UPSTREAM_TOKEN_SESSION_KEY: 'token',
        UPSTREAM_CLIENT_SECRET: 'x',
        REDIS_URL: 'http://:SECRET@r',
      }),
    ).toEqual([
      'UPSTREAM_BASE_URL is required in production (the built-in demo upstream is for development)',
      'UPSTREAM_TOKEN_SESSION_KEY must not be set with UPSTREAM_TOKEN: set only one token source',
    ]);
  });

  it("reads no session variable: sessions are the web channel's (readSessionConfig), refused there without a secret", () => {
    expect(() => loadRuntimeConfig({ SESSION_STORE: 'php', REDIS_URL: 'http://:SECRET@r' })).not.toThrow();
    const found: ConfigProblems = new Map();
    readSessionConfig({ SESSION_STORE: 'redis', REDIS_URL: 'http://:SECRET@r', UPSTREAM_TOKEN_SESSION_KEY: 'token' }, found);
    expect([...found.values()]).toEqual(['REDIS_URL must be a redis:// or rediss:// URL (got "http://r")']);
    found.clear();
    readSessionConfig({ UPSTREAM_TOKEN_SESSION_KEY: 'token' }, found);
    expect([...found.values()]).toEqual([expect.stringMatching(/^UPSTREAM_TOKEN_SESSION_KEY needs server-side sessions/)]);
  });
});

describe('the OTEL_* variables (tracing)', () => {
  it('is off without an endpoint, or when disabled', () => {
    expect(loadRuntimeConfig({}).tracing).toEqual({ enabled: false });
    expect(loadRuntimeConfig({ OTEL_SERVICE_NAME: 'x' }).tracing).toEqual({ enabled: false });
    expect(loadRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toEqual({
      enabled: false,
    });
    expect(loadRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toEqual({
      enabled: false,
    });
  });

  it('reads the standard variables: the traces endpoint, protocol, headers, resource, sampler', () => {
    expect(loadRuntimeConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      enabled: true,
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      serviceName: undefined,
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    expect(
      loadRuntimeConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.internal/otlp/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-scope-orgid=ops,authorization=Bearer%20abc',
        OTEL_SERVICE_NAME: 'cotizaciones-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.version=1.2.3',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toEqual({
      enabled: true,
      url: 'https://tempo.internal/otlp/v1/traces',
      protocol: 'http/json',
      headers: { 'x-scope-orgid': 'ops', authorization: 'Bearer abc' },
      timeoutMs: 10_000,
      serviceName: 'cotizaciones-eu',
      resourceAttributes: { 'deployment.environment': 'prod', 'service.version': '1.2.3' },
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
  });

  it('refuses what it does not support, one line each, never printing the headers', () => {
    expect(
      problems({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_EXPORTER: 'jaeger',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization SECRET-bearer',
        OTEL_TRACES_SAMPLER: 'sometimes',
      }),
    ).toEqual([
      'OTEL_TRACES_EXPORTER must be otlp or none (the only exporter here is OTLP over HTTP) (got "jaeger")',
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (got "grpc://collector:4317")',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported: use the collector\'s OTLP/HTTP port, 4318) (got "grpc")',
      'OTEL_EXPORTER_OTLP_HEADERS must be headers as key=value pairs separated by commas',
      'OTEL_TRACES_SAMPLER must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (got "sometimes")',
    ]);
    expect(problems({ OTEL_TRACES_SAMPLER_ARG: '0.5' })).toEqual([
      'OTEL_TRACES_SAMPLER_ARG is only read by the traceidratio samplers, not parentbased_always_on',
    ]);
  });
});
