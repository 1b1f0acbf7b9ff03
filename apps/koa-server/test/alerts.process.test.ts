import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  missing,
  redisProcess,
  redisServerAvailable,
  restartablePort,
  runSql,
  startStubUpstream,
  temporaryDirs,
  type RedisProcess,
  type StubUpstreamServer,
} from '@cotizaciones/adapters/testing';
import { postgresInstalled, postgresProcess } from './support/postgres-process.js';
import { prometheusInstalled, startPrometheus, type ActiveAlert, type PrometheusProcess } from './support/prometheus-process.js';
import { startProcess } from './support/process.js';
import { scaledRuleFiles } from './support/scaled-rules.js';
import { cookieHeader, FIELD_PATH, form, SESSION_KEY } from './support/service.js';
import { until } from './support/until.js';

// A real Prometheus scraping the built service, with deploy/prometheus's rules run 30 times faster
// (ranges, `for:` and the thresholds that are ages): healthy under load it fires nothing, and each
// fault the contract names fires its alert, which resolves once the fault is repaired. The alerts are
// read from Prometheus's own API.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RULE_FILES = ['recording.rules.yml', 'alerts.rules.yml'].map((file) => join(ROOT, 'deploy/prometheus', file));
const DASHBOARD = join(ROOT, 'deploy/grafana/cotizaciones.json');
const TOKEN = 'metrics-token-for-the-alerts-test';
const REFUSED_ID = '666';
/** How long an alert may take to fire or resolve: far above the scaled rules' few seconds, so only a rule that never does fails. */
const WITHIN_MS = 60_000;
const tempDir = temporaryDirs();

const firing = (alerts: readonly ActiveAlert[], name: string) =>
  alerts.some((alert) => alert.labels.alertname === name && alert.state === 'firing');

/** The service's own metric names an expression reads (recording rules' names and PromQL's words apart). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/(?<![\w:])(?:http|upstream|activity_log|session_store|process|nodejs)_[a-z0-9_]*(?![\w:(])/g)].map(
    ([name]) => name,
  );
}

describe.skipIf(
  missing("prometheus (Debian's prometheus)", prometheusInstalled) ||
    missing('redis-server', redisServerAvailable()) ||
    missing('PostgreSQL (initdb)', postgresInstalled()),
)('alerts against a live service (needs prometheus, redis-server and PostgreSQL binaries)', () => {
  let stub: StubUpstreamServer;
  let redis: RedisProcess;
  let pg: ReturnType<typeof postgresProcess>;
  let prometheus: PrometheusProcess;
  let port: number;
  let env: Record<string, string>;
  let instance: Awaited<ReturnType<typeof startProcess>>;
  let cookie = '';
  let running = true;
  let load: Promise<void>[] = [];
  const answers = new Map<string, number>();

  const signIn = async () => {
    cookie = cookieHeader(await fetch(`http://127.0.0.1:${port}/dev/login`, { method: 'POST', body: form({ id: '7' }) }));
  };
  /** Steady traffic from 4 clients, about 100 changes a second; `refusing` makes every fourth change one the store refuses. */
  let refusing = false;
  const client = async (k: number) => {
    for (let n = 0; running; n += 1) {
      const id = refusing && n % 4 === k % 4 ? REFUSED_ID : String(1 + ((n * 4 + k) % 500));
      const answer = await fetch(`http://127.0.0.1:${port}${FIELD_PATH}`, {
        method: 'POST',
        body: form({ id, field: 'estado', value: 'x' }),
        headers: { cookie },
      }).then(
        (response) => response.text(),
        () => 'failed',
      );
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
      // Pacing only, not a wait for an outcome: the load stays modest on a 2-core machine.
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  };
  const alerts = () => prometheus.alerts();
  /** What a failed wait shows: the alerts, each target's health with its last scrape's error, and how the instance ended if it did. */
  const state = async () =>
    JSON.stringify({
      alerts: (await alerts()).map((alert) => `${alert.labels.alertname} ${alert.state}`),
      targets: (await prometheus.targets()).map((target) => `${target.health} ${target.lastError}`),
      ...(instance.child.exitCode !== null || instance.child.signalCode !== null
        ? { exited: `${instance.child.exitCode ?? instance.child.signalCode}: ${instance.stderr().slice(-1_500)}` }
        : {}),
    });
  const fires = async (name: string) => {
    const started = performance.now();
    if (!(await until(async () => firing(await alerts(), name), WITHIN_MS))) throw new Error(`${name} did not fire: ${await state()}`);
    // The on-call view of the fault: which alert, after how long (in the rules' own time, 30 times this).
    const alert = (await alerts()).find((candidate) => candidate.labels.alertname === name);
    console.log(`${name} firing after ${((performance.now() - started) / 1000).toFixed(1)} s: ${alert?.annotations.runbook_url}`);
  };
  /** What the alert's runbook section has the on-call look at first, as they would see it. */
  const firstLook = (name: string, lines: readonly string[]) =>
    console.log(`${name}: the runbook's first look shows:\n  ${lines.join('\n  ').slice(0, 600)}`);
  const resolves = async (name: string) => {
    const gone = async () => !(await alerts()).some((alert) => alert.labels.alertname === name);
    if (!(await until(gone, WITHIN_MS))) throw new Error(`${name} did not resolve: ${await state()}`);
  };

  beforeAll(async () => {
    stub = await startStubUpstream();
    redis = redisProcess(await restartablePort());
    await redis.start();
    pg = postgresProcess(await restartablePort());
    pg.init();
    pg.start();
    port = await restartablePort();
    env = {
      PORT: String(port),
      UPSTREAM_BASE_URL: stub.url,
      UPSTREAM_TOKEN: 't',
      SESSION_KEYS: SESSION_KEY,
      SESSION_STORE: 'redis',
      REDIS_URL: redis.url,
      ACTIVITY_LOG_URL: pg.url,
      ACTIVITY_LOG_SPOOL: join(tempDir('alerts-spool-'), 'spool'),
      DEV_LOGIN: '1',
      METRICS_TOKEN: TOKEN,
    };
    instance = await startProcess(env, undefined, { livesFor: 'file' });
    await signIn();
    const rules = scaledRuleFiles(RULE_FILES, tempDir('alerts-rules-'), {
      factor: 30,
      secondsThresholds: [
        'activity_log_oldest_pending_seconds{job="cotizaciones"} > 300',
        'job:activity_log_oldest_pending_seconds:max > bool 60',
      ],
    });
    prometheus = await startPrometheus(
      {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        scrape_configs: [
          {
            job_name: 'cotizaciones',
            scrape_timeout: '900ms',
            authorization: { credentials: TOKEN },
            static_configs: [{ targets: [`127.0.0.1:${port}`] }],
          },
        ],
      },
      rules,
    );
    load = [0, 1, 2, 3].map((k) => client(k));
  }, 180_000);

  afterAll(async () => {
    running = false;
    await Promise.all(load);
    await prometheus?.stop();
    await redis?.stop();
    try {
      pg?.stop();
    } catch {
      // Already stopped by a failed test.
    }
    pg?.remove();
    await stub?.close();
  }, 60_000);

  it('reads only metrics the live service exposes: a renamed metric fails here', async () => {
    // Labelled series appear with their first observation: wait for answered changes.
    expect(await until(() => (answers.get('{"ok":true}') ?? 0) >= 20, WITHIN_MS)).toBe(true);
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const exposed = new Set([...(await response.text()).matchAll(/^([a-z_][a-z0-9_]*)[{ ]/gm)].map(([, name]) => name));
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = [
      ...RULE_FILES.flatMap((file) => (parse(readFileSync(file, 'utf8')) as { groups: { rules: { expr: string }[] }[] }).groups),
    ]
      .flatMap((group) => group.rules.map((rule) => rule.expr))
      .concat(dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)));
    const used = new Set(exprs.flatMap(metricNames));
    expect(used.size).toBeGreaterThan(20);
    // upstream_failures_total has a series once a call fails (its label is the failure's kind).
    expect([...used].filter((name) => !exposed.has(name) && name !== 'upstream_failures_total')).toEqual([]);
  });

  it('fires nothing while the service is healthy under load', async () => {
    // Rules evaluated in the first seconds may be stamped before the first scrape (`absent(up)`
    // pending): the watch starts once the target has been up for 10 s and nothing is pending.
    const up = 'count_over_time(up{job="cotizaciones"}[10s]) >= 9 and min_over_time(up{job="cotizaciones"}[10s]) == 1';
    const warm = async () => (await prometheus.query(up)).data?.result.length === 1 && (await alerts()).length === 0;
    expect(await until(warm, WITHIN_MS), await state()).toBe(true);
    const seen = new Set<string>();
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      for (const alert of await alerts()) seen.add(`${alert.labels.alertname} ${alert.state}`);
      for (const target of await prometheus.targets()) if (target.lastError) seen.add(`scrape: ${target.lastError}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect([...seen], await state()).toEqual([]);
    expect(answers.get('{"ok":true}')).toBeGreaterThan(500);
  }, 120_000);

  it('the upstream answering 500: CotizacionesUpstreamFailing fires, and resolves once it answers again', async () => {
    stub.answer({ status: 500, json: { ok: false } });
    await fires('CotizacionesUpstreamFailing');
    // The runbook's first look: the failures by kind in /metrics.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const failures = metrics.split('\n').filter((line) => line.startsWith('upstream_failures_total{'));
    firstLook('CotizacionesUpstreamFailing', failures);
    expect(failures.join('\n')).toMatch(/^upstream_failures_total\{kind="http_status"\} [1-9]/m);
    stub.answer({ json: { ok: true } });
    await resolves('CotizacionesUpstreamFailing');
  }, 150_000);

  it('entries the store refuses: CotizacionesActivityEntriesSetAside fires, and resolves once none comes', async () => {
    await runSql(pg.url, `ALTER TABLE activity_log ADD CONSTRAINT refuse_${REFUSED_ID} CHECK (entity_id <> ${REFUSED_ID})`);
    refusing = true;
    await fires('CotizacionesActivityEntriesSetAside');
    // The runbook's first look: the server log's line for each refused entry.
    const refused = instance
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"activity log entry refused by the store; set aside in the dead-letter file"'));
    firstLook('CotizacionesActivityEntriesSetAside', refused.slice(0, 1));
    expect(refused.length).toBeGreaterThan(0);
    refusing = false;
    await resolves('CotizacionesActivityEntriesSetAside');
  }, 150_000);

  it('the activity database unreachable: CotizacionesActivityLogStoreDown fires, and resolves once it is back', async () => {
    pg.stop();
    await fires('CotizacionesActivityLogStoreDown');
    // The runbook's first look: /readyz, as anyone sees it.
    const readyz = await (await fetch(`http://127.0.0.1:${port}/readyz`)).text();
    firstLook('CotizacionesActivityLogStoreDown', [readyz]);
    expect(JSON.parse(readyz)).toEqual({ ok: true, degraded: ['activity log: unavailable'] });
    pg.start();
    await resolves('CotizacionesActivityLogStoreDown');
  }, 150_000);

  it('Redis unreachable: CotizacionesSessionStoreUnreachable fires, and resolves once it is back', async () => {
    await redis.stop();
    await fires('CotizacionesSessionStoreUnreachable');
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = await readyz.text();
    firstLook('CotizacionesSessionStoreUnreachable', [`${readyz.status} ${body}`]);
    expect(readyz.status).toBe(503);
    expect(body).toMatch(/session/);
    await redis.start();
    // The private Redis keeps nothing: sign in again, as the users would.
    await signIn();
    await resolves('CotizacionesSessionStoreUnreachable');
  }, 150_000);

  it('the instance killed: CotizacionesInstanceDown fires, and resolves once it runs again', async () => {
    instance.child.kill('SIGKILL');
    await fires('CotizacionesInstanceDown');
    firstLook('CotizacionesInstanceDown', [`the process: exit code ${instance.child.exitCode}, signal ${instance.child.signalCode}`]);
    expect(instance.child.signalCode).toBe('SIGKILL');
    instance = await startProcess(env, undefined, { livesFor: 'file' });
    await resolves('CotizacionesInstanceDown');
  }, 150_000);

  it('gives every dashboard panel data under load', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    // A panel has data when one of its queries has: a memory limit is drawn only where there is one.
    const empty: string[] = [];
    for (const panel of dashboard.panels.filter((candidate) => candidate.targets?.length)) {
      let series = 0;
      for (const { expr } of panel.targets!) {
        const answer = await prometheus.query(expr);
        expect(answer.status, `${panel.title}: ${expr}`).toBe('success');
        series += answer.data?.result.length ?? 0;
      }
      if (series === 0) empty.push(panel.title);
    }
    expect(empty, await state()).toEqual([]);
  }, 60_000);
});
