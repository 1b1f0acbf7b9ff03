import autocannon from 'autocannon';
import { UPDATE_QUOTATION_FIELD } from '@cotizaciones/core';
import type { LoadOptions, LoadResult } from './load-options.js';
import { runPacedLoad } from './paced-load.js';

export const FIELD_PATH = UPDATE_QUOTATION_FIELD.webPath;
const BODY = 'id=12&field=estado&value=aprobada';

/** Drives endpoint A, at a fixed rate or as fast as it answers (autocannon, each connection with its own signed-in session; paced, each request with the next). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.overallRate) return runPacedLoad({ ...options, rate: options.overallRate, path: FIELD_PATH, body: BODY });
  let wrongBodies = 0;
  let next = 0;
  const expected = options.expectedBody ?? '{"ok":true}';
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    ...(options.timeoutS ? { timeout: options.timeoutS } : {}),
    requests: [
      {
        method: 'POST',
        path: FIELD_PATH,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: BODY,
        setupRequest: (request, context: { cookie?: string | undefined }) => {
          context.cookie ??= options.cookies[next++ % options.cookies.length];
          return { ...request, headers: { ...request.headers, cookie: context.cookie ?? '' } };
        },
        onResponse: (_status, body) => {
          if (body !== expected) wrongBodies += 1;
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.total / options.durationS,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p999: result.latency.p99_9,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    wrongBodies,
  };
}
