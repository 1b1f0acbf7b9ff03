import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { freePort } from '@cotizaciones/adapters/testing';
import { until } from './until.js';

/** Debian's `prometheus` package: the server and promtool (.ci/run installs it). */
export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';
export const prometheusInstalled = existsSync(PROMETHEUS) && existsSync(PROMTOOL);

/** A Prometheus configuration as an object (written as JSON, which Prometheus reads as YAML); `rule_files` is set by `startPrometheus`. */
export type PrometheusConfig = Record<string, unknown>;

export interface QueryResult {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly { metric: Record<string, string>; value?: [number, string] }[] };
}

export interface ActiveAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
  readonly value: string;
}

export interface LoadedRule {
  readonly type: 'alerting' | 'recording';
  readonly name: string;
  readonly query: string;
  readonly health: string;
  readonly lastError?: string;
  readonly lastEvaluation: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export type PrometheusProcess = Awaited<ReturnType<typeof startPrometheus>>;

/**
 * A private Prometheus server on a free loopback port, with its configuration, copies of `ruleFiles`
 * and its storage in a temporary folder that `stop()` removes. Resolves once `/-/ready` answers 200.
 */
export async function startPrometheus(config: PrometheusConfig, ruleFiles: readonly string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const rules = ruleFiles.map((file) => {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    return copy;
  });
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify({ ...config, rule_files: rules }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // A run that dies before its teardown must not leave the server running.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const ready = () =>
    fetch(`${url}/-/ready`).then(
      (response) => response.status === 200,
      () => false,
    );
  // The deadline only bounds a hang: the server is ready within a second or two.
  if (!(await until(async () => child.exitCode !== null || (await ready()), 120_000)) || child.exitCode !== null) {
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`prometheus did not become ready on ${url}: ${stderr}`);
  }
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    return (await response.json()) as T;
  };
  return {
    url,
    /** An instant query; the answer as Prometheus gives it (status `success` or `error`). */
    query: (expr: string) => api<QueryResult>(`/api/v1/query?query=${encodeURIComponent(expr)}`),
    /** The alerts pending or firing now. */
    alerts: async () => (await api<{ data: { alerts: ActiveAlert[] } }>('/api/v1/alerts')).data.alerts,
    /** Every rule loaded, with its health after its last evaluation. */
    rules: async () =>
      (await api<{ data: { groups: { name: string; rules: LoadedRule[] }[] } }>('/api/v1/rules')).data.groups.flatMap(
        (group) => group.rules,
      ),
    /** Each scrape target's health and its last scrape's error: why a target's `up` is 0. */
    targets: async () =>
      (await api<{ data: { activeTargets: { scrapeUrl: string; health: string; lastError: string }[] } }>('/api/v1/targets')).data
        .activeTargets,
    /** What the server wrote on stderr (its warnings and errors). */
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      process.off('exit', kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
