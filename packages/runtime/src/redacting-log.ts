import { trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import type { StdoutSink } from './stdout-sink.js';

/** The log every channel writes: JSON lines (pino's interface). */
export type Log = Pick<Logger, 'info' | 'warn' | 'error' | 'debug' | 'fatal'> & { child: Logger['child'] };

const MAX_MESSAGE = 300;

/**
 * What the log keeps of an error: name, message (bounded) and code. Never its other
 * properties: Node's parser errors carry `rawPacket`, the request's raw bytes with its
 * Cookie and Authorization headers; client libraries attach requests and responses.
 */
export function errorSummary(error: unknown): { name?: string; message: string; code?: string } {
  if (!(error instanceof Error)) return { message: bounded(String(error)) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: bounded(error.message), ...(typeof code === 'string' ? { code: bounded(code) } : {}) };
}

function bounded(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

const NO_IDS = Object.freeze({});

/** The active span's ids, for a log line; none when no span is recording (tracing off, or not sampled). */
function traceIds(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return NO_IDS;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** JSON lines; secrets that may ride along in logged objects are redacted, errors reduced to {@link errorSummary}. */
export function createLog(level: string, destination: NodeJS.WritableStream | StdoutSink = process.stdout): Log {
  return pino(
    {
      level,
      base: null,
      // A line written inside a traced request names its trace and span; with tracing off there is no active span.
      mixin: traceIds,
      // pino's own strategy writes the line's fields into the mixin's object: not into the shared empty one.
      mixinMergeStrategy: (fields: object, ids: object) => (ids === NO_IDS ? fields : Object.assign(ids, fields)),
      serializers: { err: errorSummary, error: errorSummary },
      redact: {
        paths: [
          'token',
          '*.token',
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          'headers.authorization',
          'headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * The same log without redaction, for lines built field by field by their caller, none of them a
 * redacted path (the request line): with a wildcard path, pino runs every field of every line
 * through its redactor.
 */
export function unredactedLog(log: Log): Log {
  return log.child({}, { redact: [] });
}
