import { request } from 'node:http';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectAnswer } from './support/contract-headers.js';
import { FIELD_PATH, ITEM_PATH, form, startService } from './support/service.js';
import { until } from './support/until.js';

/** One sample of a Prometheus text exposition, e.g. value(text, 'http_requests_total{endpoint="x",…}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('counts requests by endpoint, method and outcome, times them, and shows the upstream and the activity log', async () => {
    // The upstream's deadline, short: one request lets the upstream hang.
    const svc = await startService({ UPSTREAM_TIMEOUT_MS: '1000' });
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
    expect(value(text, 'activity_log_store_up')).toBe(1);
    expect(text).toContain('process_resident_memory_bytes');
    await svc.close();
  });

  it("shows the spool's and the dead-letter file's bytes against their bounds, and the memory limit the process runs under", async () => {
    const svc = await startService({ ACTIVITY_LOG_SPOOL_MAX_BYTES: '1048576', ACTIVITY_LOG_DEAD_LETTER_MAX_BYTES: '2097152' });
    const scrape = async () => (await fetch(`${svc.url}/metrics`)).text();
    let text = await scrape();
    expect(value(text, 'activity_log_spool_max_bytes')).toBe(1_048_576);
    expect(value(text, 'activity_log_dead_letter_max_bytes')).toBe(2_097_152);
    expect(value(text, 'activity_log_dead_letter_bytes')).toBe(0);

    const cookie = await svc.signIn();
    for (const id of ['1', '2', '3']) await svc.post(FIELD_PATH, form({ id }), { cookie });
    await svc.rows();
    // A dead-letter file of some size, as a replay or another instance may have left it: the gauge reads the file.
    writeFileSync(svc.deadLetterFile, 'x'.repeat(4321));
    text = await scrape();
    const onDisk = readdirSync(svc.spool).reduce((sum, name) => sum + statSync(join(svc.spool, name)).size, 0);
    expect(onDisk).toBeGreaterThan(0);
    expect(value(text, 'activity_log_spool_bytes')).toBe(onDisk);
    expect(value(text, 'activity_log_dead_letter_bytes')).toBe(4321);
    expect(value(text, 'activity_log_oldest_pending_seconds')).toBe(0);
    expect(value(text, 'process_memory_limit_bytes')).toBeGreaterThanOrEqual(0);
    await svc.close();
  });

  it("times the service's own share of each request apart from the time it waited on the upstream", async () => {
    const svc = await startService();
    const cookie = await svc.signIn();
    const delayMs = 200;
    svc.stub.answer({ json: { ok: true }, delayMs });
    const count = 3;
    for (let id = 1; id <= count; id += 1) expect((await svc.post(FIELD_PATH, form({ id: String(id) }), { cookie })).status).toBe(200);
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    const series = (name: string) => value(text, `${name}{endpoint="update_cotizacion"}`) ?? Number.NaN;
    expect(series('http_request_service_seconds_count')).toBe(count);
    expect(series('http_request_duration_seconds_count')).toBe(count);
    // Each answer waited the stub's delay at least (a timer may fire up to a millisecond early).
    const waited = series('http_request_duration_seconds_sum') - series('http_request_service_seconds_sum');
    expect(waited).toBeGreaterThanOrEqual((count * (delayMs - 1)) / 1000);
    expect(series('http_request_service_seconds_sum')).toBeGreaterThan(0);
    await svc.close();
  });

  it('wants the bearer token when METRICS_TOKEN is set', async () => {
    const svc = await startService({ METRICS_TOKEN: 'metrics-token-0123456789' });
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(401);
    // Compared whole, in constant time: a prefix, an extension or another case is not the token.
    for (const wrong of [
      'Bearer wrong',
      'Bearer metrics-token-012345678',
      'Bearer metrics-token-0123456789x',
      'bearer METRICS-TOKEN-0123456789',
      'metrics-token-0123456789',
    ]) {
      expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: wrong } })).status).toBe(401);
    }
    expect((await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } })).status).toBe(200);
    await svc.close();
  });
});

describe('GET /readyz', () => {
  const readyz = async (url: string) => {
    const response = await fetch(`${url}/readyz`);
    return { status: response.status, body: (await response.json()) as { ok: boolean; reasons?: string[]; degraded?: string[] } };
  };

  it('is 503 naming the session store from its first answer when Redis sessions cannot be reached', async () => {
    const svc = await startService({ SESSION_STORE: 'redis', REDIS_URL: 'redis://:SECRET-pw@127.0.0.1:1' });
    const response = await fetch(`${svc.url}/readyz`);
    const text = await response.text();
    expect(response.status).toBe(503);
    expect(JSON.parse(text)).toEqual({ ok: false, reasons: [expect.stringMatching(/^session store: /)] });
    expect(text).not.toContain('SECRET');
    await svc.close();
  });

  it('stays 200 while the activity-log store cannot be reached, naming it as degraded; activity_log_store_up is 0; the endpoints answer', async () => {
    const svc = await startService({ ACTIVITY_LOG_URL: 'postgres://postgres:SECRET-pw@127.0.0.1:1/test' });
    // The service starts once its first check has finished: the first answer is that check's finding.
    const response = await fetch(`${svc.url}/readyz`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ ok: true, degraded: ['activity log: unavailable'] });
    expect(text).not.toContain('SECRET');
    expect(value(await (await fetch(`${svc.url}/metrics`)).text(), 'activity_log_store_up')).toBe(0);
    const cookie = await svc.signIn();
    await expectAnswer(await svc.post(FIELD_PATH, form({ id: '1' }), { cookie }), 200, '{"ok":true}');
    await svc.close();
  });

  it("names the failing part to anyone, and its host, port and driver message only to the metrics token's holder", async () => {
    const token = 'metrics-token-0123456789';
    const svc = await startService({ ACTIVITY_LOG_URL: 'postgres://postgres:SECRET-pw@127.0.0.1:1/test', METRICS_TOKEN: token });
    const anonymous = { ok: true, degraded: ['activity log: unavailable'] };
    const detailed = { ok: true, degraded: [expect.stringMatching(/^activity log: .*ECONNREFUSED 127\.0\.0\.1:1$/)] };
    // Ahead of the line (a plain GET), and through the router (a GET with a body takes the line): the same answers.
    for (const ask of [probe, probeInLine]) {
      const plain = await ask(svc.url, undefined);
      expect(plain.status).toBe(200);
      expect(JSON.parse(plain.text)).toEqual(anonymous);
      expect(plain.text).not.toMatch(/127\.0\.0\.1|:1\b|ECONNREFUSED|postgres|SECRET/);
      const holder = await ask(svc.url, `Bearer ${token}`);
      expect(JSON.parse(holder.text)).toEqual(detailed);
      expect(holder.text).not.toContain('SECRET');
      // The same check as /metrics: a prefix, an extension, another case or scheme is no token, and is answered as anyone.
      for (const wrong of [
        'Bearer wrong',
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token}x`,
        `bearer ${token}`,
        token,
        `Basic ${token}`,
        '',
      ]) {
        expect(JSON.parse((await ask(svc.url, wrong)).text), wrong).toEqual(anonymous);
      }
    }
    await svc.close();
  });

  it('shows nobody the detail when no METRICS_TOKEN is set, whatever the caller sends', async () => {
    const svc = await startService({ ACTIVITY_LOG_URL: 'postgres://postgres:SECRET-pw@127.0.0.1:1/test' });
    for (const ask of [probe, probeInLine]) {
      for (const authorization of [undefined, 'Bearer ', 'Bearer undefined']) {
        expect(JSON.parse((await ask(svc.url, authorization)).text)).toEqual({ ok: true, degraded: ['activity log: unavailable'] });
      }
    }
    await svc.close();
  });

  it('names an activity-log store whose connection is gone once a check finds it, and stays 200', async () => {
    const svc = await startService();
    expect(await readyz(svc.url)).toEqual({ status: 200, body: { ok: true } });
    // The store's connection is gone, as when the database went away.
    await svc.service.activityStore.close();
    expect(await until(async () => (await readyz(svc.url)).body.degraded !== undefined, 10_000)).toBe(true);
    expect(await readyz(svc.url)).toEqual({ status: 200, body: { ok: true, degraded: [expect.stringMatching(/^activity log: /)] } });
    await svc.close().catch(() => undefined);
  });
});

/** GET /readyz as a probe sends it: answered by the server ahead of the fair-share line. */
async function probe(url: string, authorization: string | undefined) {
  const response = await fetch(`${url}/readyz`, { headers: authorization === undefined ? {} : { authorization } });
  return { status: response.status, text: await response.text() };
}

/** GET /readyz with a (empty) body: it takes the line, and the app's router answers it. */
function probeInLine(url: string, authorization: string | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-length': '0' };
    if (authorization !== undefined) headers.authorization = authorization;
    request(`${url}/readyz`, { method: 'GET', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    })
      .on('error', reject)
      .end();
  });
}
