import { describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { redisProcess, redisServerAvailable } from '@cotizaciones/adapters/testing';
import { FIELD_PATH, ITEM_PATH, form, startService } from './support/service.js';

/** One sample of a Prometheus text exposition, e.g. value(text, 'http_requests_total{endpoint="x",…}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('counts requests by endpoint, method and outcome, times them, and shows the upstream and the activity log', async () => {
    const svc = await startService();
    const cookie = await svc.signIn();
    await svc.post(FIELD_PATH, form({ id: '1' }), { cookie });
    await svc.post(FIELD_PATH, form({ id: '2' }), { cookie });
    await svc.post(ITEM_PATH, form({ id: '3' }));
    await svc.post(ITEM_PATH, form({ 'id[]': '3' }), { cookie });
    await fetch(`${svc.url}${ITEM_PATH}`);
    svc.stub.answer({ hang: true });
    await svc.post(ITEM_PATH, form({ id: '4' }), { cookie });
    svc.stub.answer({ status: 500, text: '<html>' });
    await svc.post(FIELD_PATH, form({ id: '5' }), { cookie });
    svc.stub.answer({ status: 503, json: { ok: false } });
    await svc.post(ITEM_PATH, form({ id: '6' }), { cookie });
    await svc.rows();

    const response = await fetch(`${svc.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(value(text, 'http_requests_total{endpoint="update_cotizacion",method="POST",outcome="ok"}')).toBe(2);
    expect(value(text, 'http_requests_total{endpoint="update_cotizacion",method="POST",outcome="upstream_error"}')).toBe(1);
    expect(value(text, 'http_requests_total{endpoint="update_cot_item",method="POST",outcome="not_authenticated"}')).toBe(1);
    expect(value(text, 'http_requests_total{endpoint="update_cot_item",method="POST",outcome="rejected"}')).toBe(1);
    expect(value(text, 'http_requests_total{endpoint="update_cot_item",method="GET",outcome="rejected"}')).toBe(1);
    expect(value(text, 'http_requests_total{endpoint="update_cot_item",method="POST",outcome="upstream_error"}')).toBe(2);
    expect(value(text, 'http_request_duration_seconds_count{endpoint="update_cotizacion"}')).toBe(3);
    expect(value(text, 'upstream_request_duration_seconds_count{path="/api/cotizaciones/update"}')).toBe(3);
    expect(value(text, 'upstream_failures_total{kind="timeout"}')).toBe(1);
    expect(value(text, 'upstream_failures_total{kind="invalid_body"}')).toBe(1);
    expect(value(text, 'upstream_failures_total{kind="http_status"}')).toBe(1);
    expect(value(text, 'activity_log_written_total')).toBe(2);
    expect(value(text, 'activity_log_dropped_total')).toBe(0);
    expect(value(text, 'activity_log_queue_depth')).toBe(0);
    expect(text).toContain('process_resident_memory_bytes');
    await svc.close();
  });

  it('wants the bearer token when METRICS_TOKEN is set', async () => {
    const svc = await startService({ METRICS_TOKEN: 'metrics-token-0123456789' });
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(401);
    // Compared whole, in constant time: a prefix, an extension or another case is not the token.
    for (const wrong of ['Bearer wrong', 'Bearer metrics-token-012345678', 'Bearer metrics-token-0123456789x', 'bearer METRICS-TOKEN-0123456789', 'metrics-token-0123456789']) {
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: wrong } })).status).toBe(401);
    }
    expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } })).status).toBe(200);
    await svc.close();
  });
});

describe('GET /readyz', () => {
  it.skipIf(!redisServerAvailable())('is 200 when the stores answer, 503 with reasons when one does not, and 503 once draining', async () => {
    const redis = redisProcess(6392);
    await redis.start();
    const svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: redis.url });
    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true });

    await redis.stop();
    const down = await fetch(`${svc.url}/readyz`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { reasons: string[] }).reasons).toEqual([expect.stringMatching(/^session store: /)]);
    await expectAnswer(await fetch(`${svc.url}/healthz`), 200, '{"ok":true}');

    await redis.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await fetch(`${svc.url}/readyz`)).status;
    }
    expect(status).toBe(200);

    svc.service.drain();
    const draining = await fetch(`${svc.url}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ ok: false, reasons: ['shutting down'] });
    await expectAnswer(await fetch(`${svc.url}/healthz`), 200, '{"ok":true}');
    await svc.close();
    await redis.stop();
  });

  it('reports an activity-log store that does not answer', async () => {
    const svc = await startService();
    // The store's connection is gone, as when the database went away.
    await svc.service.activityStore.close();
    const response = await fetch(`${svc.url}/readyz`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { reasons: string[] }).reasons).toEqual([expect.stringMatching(/^activity log: /)]);
    await svc.close().catch(() => undefined);
  });
});
