import { Pool, errors } from 'undici';
import { UpstreamError } from '@cotizaciones/core';
import { DEFAULT_MAX_RESPONSE_BYTES, type ClosableUpstream, type UpstreamClientOptions } from './upstream-client-options.js';
import { parseUpstreamBody, tooLarge } from './parse-upstream-body.js';

/** The upstream over HTTP with undici's Pool (Node's own client): keep-alive, a time limit, no retries, no redirects. */
export function undiciUpstream(options: UpstreamClientOptions): ClosableUpstream {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const pool = new Pool(base.origin, {
    connections: options.maxSockets ?? 256,
    // Idle sockets are dropped before a typical 5 s server idle timeout (a POST is not retried).
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 4_000,
  });

  return {
    async post({ path, payload, token }) {
      try {
        const response = await pool.request({
          method: 'POST',
          path: `${basePath}${path}`,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'user-agent': 'cotizaciones-service',
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(payload),
          // undici's own timers: an AbortSignal per request cost ~40 % of this client's CPU. The limit
          // bounds the wait for the answer's headers and each wait for more of its body.
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        // A declared length within the limit is read in one go; otherwise count the bytes as they come.
        const declared = Number(response.headers['content-length'] ?? Number.NaN);
        const text = declared <= maxBytes ? await response.body.text() : await readBounded(response.body, maxBytes);
        return { status: response.statusCode, body: parseUpstreamBody(text) };
      } catch (error) {
        throw asUpstreamError(error, options.timeoutMs);
      }
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
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function asUpstreamError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof UpstreamError) return error;
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError
  ) {
    return new UpstreamError('timeout', `no answer within ${timeoutMs} ms`);
  }
  if (error instanceof errors.UndiciError || (error instanceof Error && 'code' in error)) {
    const code = (error as { code?: unknown }).code;
    return new UpstreamError('connection', `${typeof code === 'string' ? code : 'error'}: ${error.message}`);
  }
  return error;
}
