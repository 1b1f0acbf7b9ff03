import { Pool } from 'undici';
import type { LoadOptions, LoadResult } from './load-options.js';
import { quantile } from './quantile.js';

export interface PacedLoadOptions extends Omit<LoadOptions, 'overallRate'> {
  readonly path: string;
  readonly body: string;
  /** Requests per second, sent evenly: the i-th at start + i / rate, whether or not the earlier ones were answered. */
  readonly rate: number;
}

/**
 * An open loop at one even rate (wrk2's way): each request has its intended send time, and its latency
 * is counted from that time, so a stall of the service shows in every request it held up, not only in
 * the few a closed loop had in flight. autocannon's `overallRate` paces each connection in bursts, so
 * a low rate shaped the latencies (p50 rose as the rate fell).
 */
export async function runPacedLoad(options: PacedLoadOptions): Promise<LoadResult> {
  const total = Math.round(options.rate * options.durationS);
  const latencies = new Float64Array(total);
  const expected = options.expectedBody ?? '{"ok":true}';
  const timeoutMs = (options.timeoutS ?? 10) * 1000;
  const pool = new Pool(options.url, { connections: options.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  let answered = 0;
  let errors = 0;
  let non2xx = 0;
  let wrongBodies = 0;
  let sendLagMax = 0;
  const send = async (i: number, intended: number): Promise<void> => {
    try {
      const response = await pool.request({
        method: 'POST',
        path: options.path,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: options.cookies[i % options.cookies.length] ?? '',
        },
        body: options.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      latencies[answered] = performance.now() - intended;
      answered += 1;
      if (response.statusCode < 200 || response.statusCode > 299) non2xx += 1;
      if (text !== expected) wrongBodies += 1;
    } catch {
      errors += 1;
    }
  };
  const inFlight: Array<Promise<void>> = [];
  const started = performance.now();
  const intervalMs = 1000 / options.rate;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) {
        const intended = started + sent * intervalMs;
        sendLagMax = Math.max(sendLagMax, now - intended);
        inFlight.push(send(sent, intended));
        sent += 1;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  await pool.close();
  const sorted = latencies.subarray(0, answered).sort();
  return {
    requests: answered,
    rps: answered / options.durationS,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    p999: quantile(sorted, 0.999),
    max: quantile(sorted, 1),
    errors,
    non2xx,
    wrongBodies,
    sendLagMax,
    latencies: sorted,
  };
}
