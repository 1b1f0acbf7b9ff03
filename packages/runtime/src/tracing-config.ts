import { z } from 'zod';
import type { ConfigProblems } from './config-problems.js';
import { integer, readVariables, reporter, secret, type Environment } from './read-env.js';

/** `key=value` pairs separated by commas, values percent-encoded: the OTel variables' own list format. */
const pairs = (what: string) =>
  z
    .string()
    .refine((text) => parsePairs(text) !== undefined, `must be ${what} as key=value pairs separated by commas`)
    .optional();

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
const protocol = z
  .enum(['http/protobuf', 'http/json'])
  .optional()
  .describe("http/protobuf or http/json (grpc is not supported: use the collector's OTLP/HTTP port, 4318)");
const endpoint = z
  .url({ protocol: /^https?$/ })
  .optional()
  .describe('an http:// or https:// URL');
const timeout = integer(1, 600_000, 10_000);

/** The OpenTelemetry SDK's standard variables this service supports: traces over OTLP/HTTP. */
const TracingEnv = z.object({
  OTEL_SDK_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False']).optional().describe('true or false'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional().describe('otlp or none (the only exporter here is OTLP over HTTP)'),
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_HEADERS: secret(pairs('headers')),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: secret(pairs('headers')),
  OTEL_EXPORTER_OTLP_TIMEOUT: timeout,
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: integer(1, 600_000, 10_000).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(256).optional().describe('a service name'),
  OTEL_RESOURCE_ATTRIBUTES: pairs('attributes'),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on').describe(SAMPLERS.join(', ')),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional().describe('a ratio from 0 to 1'),
});

export type Sampler = (typeof SAMPLERS)[number];

/** Tracing, as the OTEL_* variables set it up: off unless an endpoint is given. */
export type TracingConfig =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      /** Where spans are POSTed: the traces endpoint as given, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
      readonly url: string;
      readonly protocol: 'http/protobuf' | 'http/json';
      /** Sent with each export; never printed. */
      readonly headers: Readonly<Record<string, string>>;
      readonly timeoutMs: number;
      /** Unset: the channel's own name. */
      readonly serviceName: string | undefined;
      readonly resourceAttributes: Readonly<Record<string, string>>;
      readonly sampler: Sampler;
      /** The ratio of the `*traceidratio` samplers (default 1). */
      readonly ratio: number;
    };

/** OTEL_*: every bad or unsupported value becomes a line in `problems`. */
export function readTracingConfig(env: Environment, problems: ConfigProblems): TracingConfig {
  const e = readVariables(TracingEnv, env, problems);
  const report = reporter(problems);
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  const disabled = e.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || e.OTEL_TRACES_EXPORTER === 'none';
  if (e.OTEL_TRACES_SAMPLER_ARG !== undefined && !e.OTEL_TRACES_SAMPLER.endsWith('traceidratio')) {
    report('OTEL_TRACES_SAMPLER_ARG', `is only read by the traceidratio samplers, not ${e.OTEL_TRACES_SAMPLER}`, 'OTEL_TRACES_SAMPLER');
  }
  if (disabled || url === undefined) return { enabled: false };
  return {
    enabled: true,
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...parsePairs(e.OTEL_EXPORTER_OTLP_HEADERS ?? ''), ...parsePairs(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? '') },
    timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT,
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: parsePairs(e.OTEL_RESOURCE_ATTRIBUTES ?? '') ?? {},
    sampler: e.OTEL_TRACES_SAMPLER,
    ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
  };
}

/** `a=1,b=x%20y` as { a: '1', b: 'x y' }; undefined when a pair has no `=`, no key, or a bad escape. */
function parsePairs(text: string): Record<string, string> | undefined {
  const result: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at < 1 || key === '') return undefined;
    try {
      result[decodeURIComponent(key)] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return result;
}
