import { Pool, errors } from 'undici';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  parseUpstreamBody,
  upstreamConnectionError,
  upstreamTooLarge,
  UpstreamError,
  type UpstreamRequest,
  type UpstreamReply,
} from '@cotizaciones/core';
import type { ClosableUpstream, UpstreamClientOptions } from './upstream-client-options.js';
import { Deadline } from './deadline.js';
import { traceHeaders } from './trace-headers.js';

/** The upstream over HTTP with undici's Pool (Node's own client): keep-alive, one total time limit, no retries, no redirects. */
export function undiciUpstream(options: UpstreamClientOptions): ClosableUpstream {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const pool = new Pool(base.origin, {
    connections: options.maxSockets ?? 256,
    // Idle sockets are dropped before a typical 5 s server idle timeout (a POST is not retried).
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 4_000,
    // A connection that cannot be set up in time is given up (the deadline has already failed the call).
    connect: { timeout: options.timeoutMs },
  });
  const timeoutError = () => new UpstreamError('timeout', `no complete answer within ${options.timeoutMs} ms`);

  async function call({ path, payload, token, idempotencyKey }: UpstreamRequest, deadline: Deadline): Promise<UpstreamReply> {
    const response = await pool.request({
      method: 'POST',
      path: `${basePath}${path}`,
      headers: {
        ...traceHeaders(),
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'cotizaciones-service',
        authorization: `Bearer ${token}`,
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(payload),
      // undici's headersTimeout/bodyTimeout bound each wait, not the call: a body dripping one byte
      // at a time never trips them. The deadline aborts the request, whatever phase it is in.
      signal: deadline,
    });
    // A declared length within the limit is read in one go; otherwise count the bytes as they come.
    const declared = Number(response.headers['content-length'] ?? Number.NaN);
    const text = declared <= maxBytes ? await response.body.text() : await readBounded(response.body, maxBytes);
    return { status: response.statusCode, body: parseUpstreamBody(text, response.statusCode) };
  }

  return {
    post(request) {
      // Settled by whichever comes first: the answer, or the deadline (even while undici is still
      // connecting, when it cannot abort yet; it gives the connection up at its own connect timeout).
      return new Promise((resolve, reject) => {
        const deadline = new Deadline(options.timeoutMs, timeoutError, reject);
        call(request, deadline).then(
          (reply) => {
            deadline.clear();
            resolve(reply);
          },
          (error: unknown) => {
            deadline.clear();
            reject(asUpstreamError(error));
          },
        );
      });
    },
    close() {
      void pool.close().catch(() => undefined);
    },
  };
}

/** The body as UTF-8 text, or a failure as soon as it passes `maxBytes` (the rest is not read). */
async function readBounded(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw upstreamTooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function asUpstreamError(error: unknown): Error {
  if (error instanceof UpstreamError) return error;
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError
  ) {
    return new UpstreamError('timeout', error.message);
  }
  if (error instanceof errors.UndiciError || (error instanceof Error && 'code' in error)) {
    const code = (error as { code?: unknown }).code;
    return upstreamConnectionError(typeof code === 'string' ? code : 'error', error.message);
  }
  return error instanceof Error ? error : new Error(String(error));
}
