import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { headingAnchors } from './support/markdown-anchors.js';

// What deploy/prometheus, deploy/grafana and compose.yaml's monitoring profile promise, read as
// files: the rules' own evaluation is prometheus-rules.int.test.ts's.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
const rulesOf = (file: string) => (parse(read(file)) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules);
const ALERTS = rulesOf('deploy/prometheus/alerts.rules.yml');
const RECORDED = new Set(rulesOf('deploy/prometheus/recording.rules.yml').map((rule) => rule.record!));
const ALERT_NAMES = [...new Set(ALERTS.map((rule) => rule.alert!))];

interface Panel {
  readonly type: string;
  readonly title: string;
  readonly datasource?: { type: string; uid: string };
  readonly targets?: readonly { expr: string; datasource?: { type: string; uid: string } }[];
}
const DASHBOARD = JSON.parse(read('deploy/grafana/cotizaciones.json')) as {
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};
/** The recorded series (level:metric:operation) an expression reads. */
const recordedNames = (expr: string) => [...expr.matchAll(/\b[a-z_]+:[a-z_]+:[a-z_0-9]+\b/g)].map((match) => match[0]);

describe('the Prometheus alerts', () => {
  it('each carry a severity (page or ticket), a summary, a description and a runbook_url to their own section of docs/runbooks.md', () => {
    const runbooks = headingAnchors(read('docs/runbooks.md'));
    expect(ALERTS.length).toBeGreaterThanOrEqual(16);
    for (const rule of ALERTS) {
      expect(['page', 'ticket'], `${rule.alert}: severity`).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, `${rule.alert}: summary`).toMatch(/\w/);
      expect(rule.annotations?.description, `${rule.alert}: description`).toMatch(/\w/);
      // The section's heading is the alert's name: its anchor, the name in lower case.
      expect(rule.annotations?.runbook_url, `${rule.alert}: runbook_url`).toBe(`docs/runbooks.md#${rule.alert!.toLowerCase()}`);
      expect(runbooks, `${rule.alert}: docs/runbooks.md has no such heading`).toContain(rule.alert!.toLowerCase());
    }
  });

  it('read only series the recording rules record', () => {
    const read = ALERTS.flatMap((rule) => recordedNames(rule.expr));
    expect(read.length).toBeGreaterThan(0);
    expect(read.filter((name) => !RECORDED.has(name))).toEqual([]);
  });

  it('each have a promtool test that makes them fire and one that keeps them silent', () => {
    const file = parse(read('deploy/prometheus/tests/rules.test.yml')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = file.tests.flatMap((test) => test.alert_rule_test ?? []);
    const fired = new Set(cases.filter((test) => test.exp_alerts.length > 0).map((test) => test.alertname));
    const silent = new Set(cases.filter((test) => test.exp_alerts.length === 0).map((test) => test.alertname));
    expect(
      ALERT_NAMES.filter((name) => !fired.has(name)),
      'never fired',
    ).toEqual([]);
    expect(
      ALERT_NAMES.filter((name) => !silent.has(name)),
      'never checked silent',
    ).toEqual([]);
  });

  it('select the session store unreachable alone, not the lock waiters full or a lock held too long', () => {
    const rule = ALERTS.find((candidate) => candidate.alert === 'CotizacionesSessionStoreUnreachable');
    expect(rule?.expr).toMatch(/session_store_errors_total\{[^}]*cause="unreachable"/);
  });
});

describe('the Grafana dashboard', () => {
  const panels = DASHBOARD.panels.filter((panel) => panel.type !== 'row');

  it('takes its data source from a variable of type prometheus, in every panel and query', () => {
    expect(DASHBOARD.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const target of panel.targets ?? [])
        expect(target.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
  });

  it('shows the objectives first, then the causes', () => {
    const rows = DASHBOARD.panels.filter((panel) => panel.type === 'row').map((panel) => panel.title);
    expect(rows[0]).toMatch(/^Objectives/);
    expect(rows.at(-1)).toMatch(/^Causes/);
    const firstCause = DASHBOARD.panels.findIndex((panel) => panel.type === 'row' && panel.title.startsWith('Causes'));
    const objectives = DASHBOARD.panels.slice(0, firstCause).flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    // Each objective's series among the panels before the causes, the budget's burn and what is left of it included.
    for (const series of [
      'cotizaciones_requests_failed',
      'cotizaciones_requests_slow',
      'cotizaciones_audit_stale',
      'cotizaciones_audit_incomplete',
    ]) {
      expect(objectives.filter((expr) => expr.includes(series)).length, series).toBeGreaterThanOrEqual(3);
    }
  });

  it('reads only series the recording rules record', () => {
    const read = panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => recordedNames(target.expr)));
    expect(read.length).toBeGreaterThan(0);
    expect(read.filter((name) => !RECORDED.has(name))).toEqual([]);
  });
});

describe("compose.yaml's monitoring profile", () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      {
        image?: string;
        profiles?: string[];
        volumes?: string[];
        environment?: Record<string, string>;
        configs?: { source: string; target: string }[];
      }
    >;
    configs?: Record<string, { content?: string }>;
  };

  it('runs prom/prometheus with the rules of deploy/prometheus and grafana/grafana with the dashboard, only under that profile', () => {
    const { prometheus, grafana } = compose.services;
    expect(prometheus?.image).toMatch(/^prom\/prometheus:/);
    expect(grafana?.image).toMatch(/^grafana\/grafana:/);
    expect(prometheus?.profiles).toEqual(['monitoring']);
    expect(grafana?.profiles).toEqual(['monitoring']);
    const mounted = (service: { volumes?: string[] } | undefined) => (service?.volumes ?? []).map((volume) => volume.split(':'));
    // prometheus.yml names its rule files relative to itself: each mounted beside it.
    const config = parse(read('deploy/prometheus/prometheus.yml')) as { rule_files: string[] };
    const prometheusMounts = mounted(prometheus);
    for (const file of ['prometheus.yml', ...config.rule_files])
      expect(prometheusMounts).toContainEqual([`./deploy/prometheus/${file}`, `/etc/prometheus/${file}`, 'ro']);
    expect(mounted(grafana).map(([source]) => source)).toContain('./deploy/grafana/cotizaciones.json');
    for (const [source] of [...prometheusMounts, ...mounted(grafana)]) expect(existsSync(join(ROOT, source!)), source).toBe(true);
  });

  it('gives the instances and Prometheus the same METRICS_TOKEN', () => {
    const token = compose.services.app1?.environment?.METRICS_TOKEN;
    expect(token).toMatch(/\$\{METRICS_TOKEN/);
    expect(compose.services.app2?.environment?.METRICS_TOKEN).toBe(token);
    expect(compose.configs?.['metrics-token']?.content).toBe(token);
    const scrape = parse(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: { authorization: { credentials_file: string } }[] };
    expect(compose.services.prometheus?.configs).toContainEqual({
      source: 'metrics-token',
      target: scrape.scrape_configs[0]!.authorization.credentials_file,
    });
  });
});
