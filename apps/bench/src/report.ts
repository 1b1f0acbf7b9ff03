import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchReport, TargetSummary } from './bench-report.js';
import type { LatencyRow } from './php-session-bench.js';
import { REPEATED_MAX_MB, REPEATED_MAX_MS, REPEATED_READS, repeatedMet } from './repeated-session-bench.js';
import { checkTargets } from './target-checks.js';
import { spoolTailLines } from './spool-tail-report.js';

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);
/** A row's checks column: what its checks found, or ok. */
const checked = (problems: readonly string[], ok = 'ok') => (problems.length ? problems.join('; ') : ok);

export function toMarkdown(report: BenchReport): string {
  const lines = [
    `Run ${report.when} on ${report.machine}.`,
    `Settings: ${Object.entries(report.settings)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')}.`,
    '',
    '| upstream delay | target | req/s (median) | × baseline | × Fastify | p50 ms | p99 ms | p99.9 ms | CPU µs / request | peak RSS MB | checks |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...report.targets.map(
      (t) =>
        `| ${t.delayMs} ms | ${t.target} | ${fixed(t.rps)} | ${fixed(t.ratio, 2)} | ${fixed(t.referenceRatio, 2)} | ${fixed(t.p50, 1)} | ${fixed(t.p99, 1)} | ${fixed(t.p999, 1)} | ${fixed(t.cpuMsPer1000)} | ${fixed(t.peakRssMb)} | ${checked(t.problems, `ok (${t.requests} requests)`)} |`,
    ),
  ];
  if (report.peakMemory.length) {
    lines.push(
      '',
      '| peak memory run (connections opened at once) | connections | req/s | slowest answer ms | CPU µs / request | peak RSS MB | checks |',
      '|---|---|---|---|---|---|---|',
    );
    for (const m of report.peakMemory) {
      lines.push(
        `| ${m.target} | ${m.connections} | ${fixed(m.rps)} | ${fixed(m.maxMs)} | ${fixed(m.cpuMsPer1000)} | ${fixed(m.peakRssMb, 1)} | ${checked(m.problems)} |`,
      );
    }
  }
  if (report.soak) {
    const s = report.soak;
    lines.push(
      '',
      '| soak | seconds | req/s | requests | RSS after warm-up MB | RSS at end MB | growth MB | checks |',
      '|---|---|---|---|---|---|---|---|',
      `| ${s.target} | ${s.seconds} | ${fixed(s.rate)} | ${s.requests} | ${fixed(s.rssAfterWarmupMb, 1)} | ${fixed(s.rssAtEndMb, 1)} | ${fixed(s.growthMb, 1)} | ${checked(s.problems)} |`,
    );
  }
  lines.push(...spoolTailLines(report.spoolTail));
  lines.push(...tracingLines(report));
  if (report.writer.length) {
    lines.push('', '| activity-log writer | entries | entries/s | written |', '|---|---|---|---|');
    for (const w of report.writer) lines.push(`| ${w.store} | ${w.entries} | ${fixed(w.entriesPerSecond)} | ${w.written} |`);
  }
  if (report.phpSessions) {
    const table = (title: string, rows: LatencyRow[]) => [
      '',
      `| ${title} | samples | p50 ms | p90 ms | p99 ms | p50 over the first row ms |`,
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.what} | ${r.samples} | ${fixed(r.p50Ms, 3)} | ${fixed(r.p90Ms, 3)} | ${fixed(r.p99Ms, 3)} | ${fixed(r.overFirstMs, 3)} |`,
      ),
    ];
    lines.push(
      ...table('PHP session read (adapter)', report.phpSessions.reads),
      ...table('whole request, by session mode', report.phpSessions.requests),
    );
    // One row per cart, each serializer's figures side by side.
    const { decoder } = report.phpSessions;
    const perFormat = [...new Set(decoder.map((d) => d.format))].map((format) => decoder.filter((d) => d.format === format));
    const columns = perFormat.map(
      (rows) => `${rows[0]!.format}: bytes | PHP session_decode CPU µs | the service's read CPU µs | × PHP (target ≤ 2)`,
    );
    lines.push('', `| shop cart | ${columns.join(' | ')} |`, `|---|${'---|---|---|---|'.repeat(perFormat.length)}`);
    for (const [cart] of (perFormat[0] ?? []).entries()) {
      const cells = perFormat
        .map((rows) => rows[cart]!)
        .map((d) => `${d.bytes} | ${fixed(d.phpUs)} | ${fixed(d.serviceUs)} | ${fixed(d.serviceUs / d.phpUs, 2)}`);
      lines.push(`| ${cart + 1} | ${cells.join(' | ')} |`);
    }
    lines.push(
      '',
      `| igbinary session, one 50 KB string repeated | bytes | PHP igbinary_unserialize CPU ms | first decode ms | decode ms (median) | heap per decode MB | RSS per decode MB | RSS growth over ${REPEATED_READS + 1} decodes MB | target ≤ ${REPEATED_MAX_MS} ms, ≤ ${REPEATED_MAX_MB} MB |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...report.phpSessions.repeated.map((r) =>
        r.medianMs === undefined
          ? `| ${r.copies} copies | ${r.bytes} | ${fixed(r.phpMs, 2)} | ${r.failure} | | | | | no |`
          : `| ${r.copies} copies | ${r.bytes} | ${fixed(r.phpMs, 2)} | ${fixed(r.firstMs!, 1)} | ${fixed(r.medianMs, 1)} | ${fixed(r.heapMb!, 1)} | ${fixed(r.rssGrowthMb!, 1)} | ${fixed(r.rssAllMb!, 1)} | ${repeatedMet(r) ? 'yes' : 'no'} |`,
      ),
    );
    const l = report.phpSessions.large;
    lines.push(
      '',
      '| signed-in request, SESSION_STORE=php files | requests | CPU µs / request | × small (target ≤ 3) |',
      '|---|---|---|---|',
      `| small session | ${l.requests} | ${fixed(l.smallUs)} | 1.00 |`,
      `| ${l.bytes}-byte session | ${l.requests} | ${fixed(l.largeUs)} | ${fixed(l.largeUs / l.smallUs, 2)} |`,
    );
  }
  if (report.phpSessions?.throughput.length) {
    lines.push(
      '',
      '| session mode under load (32 connections, got, 0 ms upstream) | rounds | req/s | × cookie | p99 ms | CPU µs / request | checks |',
      '|---|---|---|---|---|---|---|',
    );
    const cookie = report.phpSessions.throughput[0]?.rps ?? 1;
    for (const r of report.phpSessions.throughput) {
      lines.push(
        `| ${r.mode} | ${r.rounds} | ${fixed(r.rps)} | ${fixed(r.rps / cookie, 2)} | ${fixed(r.p99Ms, 1)} | ${fixed(r.cpuUsPerRequest)} | ${checked(r.problems)} |`,
      );
    }
  }
  if (report.cli) {
    lines.push(
      '',
      '| bulk CLI (SQLite log) | client | lines | concurrency | upstream delay | rounds | lines/s | latency bound lines/s | CPU ms / line | the client alone, CPU ms / call | start-up CPU ms | checks |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...report.cli.map(
        (c) =>
          `| apply | ${c.client}${c.client === 'got' ? ' (the default)' : ''} | ${c.lines} | ${c.concurrency} | ${c.delayMs} ms | ${c.rounds} | ${fixed(c.linesPerSecond)} | ${fixed(c.boundPerSecond)} | ${fixed(c.cpuMsPerLine, 3)} | ${fixed(c.clientAloneCpuMsPerCall, 3)} | ${fixed(c.startupCpuMs)} | ${checked(c.problems)} |`,
      ),
    );
  }
  if (report.fairShare) {
    lines.push('', '| a newcomer beside | its request | samples | p50 ms | p99 ms |', '|---|---|---|---|---|');
    for (const f of report.fairShare.rows)
      lines.push(`| ${f.beside} | ${f.probe} | ${f.samples} | ${fixed(f.p50Ms, 2)} | ${fixed(f.p99Ms, 2)} |`);
    const flood = report.fairShare.flood;
    lines.push(
      '',
      `${flood.connections} connections writing ${flood.bytesEach} bytes of pipelined \`GET /healthz\` each, never reading: resident memory +${fixed(flood.rssAddedMb)} MB at most; a newcomer's \`/healthz\` ${fixed(flood.newcomerMs, 1)} ms.`,
    );
  }
  lines.push('', '| target | this run | met |', '|---|---|---|');
  for (const check of checkTargets(report))
    lines.push(`| ${check.target} | ${check.measured} | ${check.met === undefined ? '–' : check.met ? 'yes' : 'NO'} |`);
  return `${lines.join('\n')}\n`;
}

/** Tracing off against what is left of it on the request path; on (every request sampled) against off, in the same rounds. */
function tracingLines(report: BenchReport): string[] {
  const lines = [
    '',
    '| tracing, service: undici, cookie+sqlite | upstream delay | CPU µs / request | × off | req/s | p99 ms |',
    '|---|---|---|---|---|---|',
  ];
  const undiciCookie = (t: TargetSummary) => t.setting?.client === 'undici' && t.setting.stores === 'cookie+sqlite' && !t.setting.candidate;
  const offRows = report.targets.filter((t) => undiciCookie(t) && !t.setting?.traced);
  for (const off of offRows) {
    lines.push(`| off | ${off.delayMs} ms | ${fixed(off.cpuMsPer1000)} | 1.00 | ${fixed(off.rps)} | ${fixed(off.p99, 1)} |`);
    const on = report.targets.find((t) => t.delayMs === off.delayMs && undiciCookie(t) && t.setting?.traced);
    if (on)
      lines.push(
        `| on, every request sampled, OTLP/HTTP protobuf | ${on.delayMs} ms | ${fixed(on.cpuMsPer1000)} | ${fixed(on.cpuMsPer1000 / off.cpuMsPer1000, 2)} | ${fixed(on.rps)} | ${fixed(on.p99, 1)} |`,
      );
  }
  const ns = report.tracingOff.nsPerRequest;
  const leanest = Math.min(...offRows.map((t) => t.cpuMsPer1000));
  // Without a measured row (`--delays ""`) there is no CPU per request to state it against.
  const share = offRows.length ? `, ${fixed(ns / 10 / leanest, 3)} % of the service's CPU per request (target < 1 %)` : '';
  lines.push(
    '',
    `Tracing off: what is left of it on a request's path (the upstream call's header injection, the log line's span lookup) takes ${fixed(ns)} ns per request${share}.`,
  );
  return lines;
}

export function writeReport(dir: string, report: BenchReport): string {
  mkdirSync(dir, { recursive: true });
  const markdown = toMarkdown(report);
  writeFileSync(join(dir, 'latest.md'), markdown);
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ ...report, checks: checkTargets(report) }, null, 2)}\n`);
  return markdown;
}
