import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { missing, temporaryDirs } from '@cotizaciones/adapters/testing';
import { PROMTOOL, prometheusInstalled, startPrometheus, type PrometheusProcess } from './support/prometheus-process.js';
import { scaledRuleFiles } from './support/scaled-rules.js';
import { until } from './support/until.js';

// deploy/prometheus's rules and deploy/grafana's dashboard, through Debian's promtool and a real
// Prometheus server: what an operator loads is what is tested.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');
const RULE_FILES = ['recording.rules.yml', 'alerts.rules.yml'].map((file) => join(PROMETHEUS_DIR, file));
// promtool's run is CPU-bound (a few seconds alone, minutes on a machine busy with other suites):
// the limits only bound a hang, and a run past its limit is killed with its test.
const PROMTOOL_LIMIT_MS = 540_000;
const LIMIT_MS = 120_000;
const execute = promisify(execFile);
const run = (file: string, args: string[]) => execute(file, args, { timeout: PROMTOOL_LIMIT_MS });
const tempDir = temporaryDirs();

interface Panel {
  readonly title: string;
  readonly targets?: readonly { expr: string }[];
}

describe.skipIf(missing("promtool and prometheus (Debian's prometheus)", prometheusInstalled))(
  'the Prometheus rules and the Grafana dashboard',
  () => {
    it(
      'pass promtool check rules',
      async () => {
        const { stdout } = await run(PROMTOOL, ['check', 'rules', ...RULE_FILES]);
        expect(stdout.match(/SUCCESS: \d+ rules found/g)).toHaveLength(2);
      },
      LIMIT_MS,
    );

    it(
      'pass promtool test rules: every alert fires at its expected time with its labels and annotations, and stays silent on healthy series',
      async () => {
        // promtool exits 1 on any failed case, which rejects here with its report.
        const { stdout } = await run(PROMTOOL, ['test', 'rules', join(PROMETHEUS_DIR, 'tests/rules.test.yml')]);
        expect(stdout).toContain('SUCCESS');
      },
      PROMTOOL_LIMIT_MS + 30_000,
    );

    it(
      'ship an example configuration promtool accepts, its bearer read from a file',
      async () => {
        const dir = tempDir('prometheus-config-');
        const config = parse(readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as {
          rule_files: string[];
          scrape_configs: { authorization: { credentials_file: string } }[];
        };
        expect(config.rule_files.map((file) => join(PROMETHEUS_DIR, file)).sort()).toEqual([...RULE_FILES].sort());
        // The token's file is the deployment's: a stand-in here, so that promtool can open it.
        writeFileSync(join(dir, 'metrics-token'), 'a-test-token');
        for (const scrape of config.scrape_configs) scrape.authorization.credentials_file = join(dir, 'metrics-token');
        config.rule_files = RULE_FILES;
        writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
        const { stdout } = await run(PROMTOOL, ['check', 'config', join(dir, 'prometheus.yml')]);
        expect(stdout).toContain('SUCCESS');
      },
      LIMIT_MS,
    );

    describe('in a real Prometheus', () => {
      let prometheus: PrometheusProcess;

      beforeAll(async () => {
        // The rules as shipped, but every group evaluated each second (the 30-day group's own 5m too).
        const copies = scaledRuleFiles(RULE_FILES, tempDir('prometheus-rules-'), { factor: 1, secondsThresholds: [] });
        prometheus = await startPrometheus({ global: { scrape_interval: '1s', evaluation_interval: '1s' } }, copies);
      }, LIMIT_MS + 60_000);

      afterAll(async () => {
        await prometheus?.stop();
      });

      it(
        'loads every rule, and each evaluates without error',
        async () => {
          const never = '0001-01-01T00:00:00Z';
          // Polled: every group evaluates within a second of its start (the deadline bounds a hang).
          expect(
            await until(async () => (await prometheus.rules()).every((rule) => rule.lastEvaluation !== never), LIMIT_MS - 10_000),
          ).toBe(true);
          const rules = await prometheus.rules();
          const inFiles = RULE_FILES.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/^ {6}- (?:alert|record): /gm)]);
          expect(rules).toHaveLength(inFiles.length);
          expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([]);
        },
        LIMIT_MS,
      );

      it(
        'evaluates every panel query of the dashboard without error',
        async () => {
          const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/cotizaciones.json'), 'utf8')) as { panels: Panel[] };
          const queries = dashboard.panels.flatMap((panel) =>
            (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
          );
          expect(queries.length).toBeGreaterThan(20);
          for (const { panel, expr } of queries) {
            const answer = await prometheus.query(expr);
            expect(answer, `${panel}: ${expr}`).toMatchObject({ status: 'success' });
          }
        },
        LIMIT_MS,
      );

      it('rejects an expression that does not parse (the check above can fail)', async () => {
        const answer = await prometheus.query('sum(rate(http_requests_total[5m])');
        expect(answer.status).toBe('error');
      });
    });
  },
);
