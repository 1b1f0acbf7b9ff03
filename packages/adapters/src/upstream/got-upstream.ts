import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { RequestError, TimeoutError } from 'got';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  parseUpstreamBody,
  upstreamConnectionError,
  upstreamTooLarge,
  UpstreamError,
} from '@cotizaciones/core';
import { traceHeaders } from './trace-headers.js';
import type { ClosableUpstream, UpstreamClientOptions } from './upstream-client-options.js';

/** The upstream over HTTP with got: one keep-alive agent, one total time limit, no retries, no redirects. */
export function gotUpstream(options: UpstreamClientOptions): ClosableUpstream {
  const base = options.baseUrl.replace(/\/+$/, '');
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  // Our own agent: idle sockets are dropped before a typical 5 s server idle timeout,
  // so a POST is not sent on a socket the server is closing (it would not be retried).
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, timeout: 4_000 };
  const agent = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const client = got.extend({
    method: 'POST',
    agent,
    // got's `request` timeout is one total deadline: from the lookup and connect until the body's last byte.
    timeout: { request: options.timeoutMs },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'cotizaciones-service',
    },
  });

  return {
    async post({ path, payload, token, idempotencyKey }) {
      let oversized = false;
      try {
        const pending = client(`${base}${path}`, {
          body: JSON.stringify(payload),
          headers: { ...traceHeaders(), authorization: `Bearer ${token}`, 'idempotency-key': idempotencyKey },
        });
        // Stop reading an answer past the limit instead of buffering all of it.
        void pending.on('downloadProgress', ({ transferred }: { transferred: number }) => {
          if (transferred > maxBytes && !oversized) {
            oversized = true;
            pending.cancel();
          }
        });
        const response = await pending;
        return { status: response.statusCode, body: parseUpstreamBody(response.body, response.statusCode) };
      } catch (error) {
        if (oversized) throw upstreamTooLarge(maxBytes);
        // got's errors carry the request options (and so the token): keep only the message.
        if (error instanceof TimeoutError) throw new UpstreamError('timeout', error.message);
        if (error instanceof RequestError) throw upstreamConnectionError(error.code, error.message);
        throw error;
      }
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
