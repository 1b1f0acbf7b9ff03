import type { BenchReport, TargetSummary } from './bench-report.js';
import { PHP_FILES_EMPTY_SESSION, PHP_FILES_NO_COOKIE, PHP_FILES_UNKNOWN_SESSION } from './php-session-bench.js';
import { SPOOL_COST_LIMIT, SPOOL_TAIL_LIMIT, spoolCostShare, spoolTailMet } from './spool-tail-report.js';
import { REPEATED_MAX_MB, REPEATED_MAX_MS, repeatedMet } from './repeated-session-bench.js';

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** Undefined when this run did not measure it (a part skipped, a tool missing). */
  readonly met: boolean | undefined;
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** The CLI's CPU target per line (got, start-up apart), ms. */
const CLI_CPU_MS_PER_LINE = 0.4;

/** The probes' answer time beside 800 busy connections (CONTRACT "Fair share"), ms. */
const PROBE_P99_MS = 100;

/** The targets `npm run bench` decides, from this run's figures alone (medians of its interleaved rounds). */
export function checkTargets(report: BenchReport): TargetCheck[] {
  const at0 = report.targets.filter((t) => t.delayMs === 0);
  const service = (client: 'got' | 'undici', spoolOff = false) =>
    at0.find(
      (t) =>
        t.setting?.client === client &&
        t.setting.stores === 'cookie+sqlite' &&
        !t.setting.traced &&
        !t.setting.candidate &&
        t.setting.spoolOff === spoolOff,
    );
  const role = (r: TargetSummary['role']) => at0.find((t) => t.role === r);
  const checks: TargetCheck[] = [];
  const ratioCheck = (name: string, of: TargetSummary | undefined, against: TargetSummary | undefined, limit: number, note = '') => {
    if (!of || !against) return checks.push({ target: name, measured: 'not measured', met: undefined });
    const ratio = of.cpuMsPer1000 / against.cpuMsPer1000;
    return checks.push({
      target: name,
      measured: `${fixed(ratio)} × (${fixed(of.cpuMsPer1000, 0)} against ${fixed(against.cpuMsPer1000, 0)} µs; ${fixed(of.rps, 0)} against ${fixed(against.rps, 0)} req/s, p99 ${of.p99} against ${against.p99} ms)${note}`,
      met: ratio <= limit,
    });
  };
  // What the chosen libraries cost before any of the service's own work, in the same rounds.
  const floor = role('koa-floor');
  const reference = role('reference');
  const floorNote = floor && reference ? `; the Koa floor alone ${fixed(floor.cpuMsPer1000 / reference.cpuMsPer1000)} ×` : '';
  ratioCheck(
    'service, undici: CPU per request ≤ 1.25 × the Fastify reference (0 ms upstream)',
    service('undici'),
    reference,
    1.25,
    floorNote,
  );
  ratioCheck('service, got: CPU per request ≤ 1.05 × Koa + got (0 ms upstream)', service('got'), role('koa-got'), 1.05);

  const php = report.phpSessions?.throughput;
  // Every signed-in PHP session mode of the session-modes table (`php …`; the anonymous rows are checked below).
  const cookie = php?.find((r) => r.mode === 'cookie');
  const phpModes = php?.filter((r) => r.signedIn && r.mode.startsWith('php ')) ?? [];
  const measured = cookie && phpModes.length > 0;
  checks.push({
    target: 'SESSION_STORE=php, every save handler and serializer: req/s ≥ 0.8 × cookie sessions (small session)',
    measured: measured
      ? `${phpModes.map((r) => `${r.mode.slice(4)} ${fixed(r.rps / cookie.rps)} ×`).join('; ')} (cookie ${fixed(cookie.rps, 0)} req/s)`
      : 'not measured',
    met: measured ? phpModes.every((r) => r.rps >= 0.8 * cookie.rps) : undefined,
  });

  const noCookie = php?.find((r) => r.mode === PHP_FILES_NO_COOKIE);
  for (const [mode, cookie] of [
    [PHP_FILES_EMPTY_SESSION, "an empty session's cookie"],
    [PHP_FILES_UNKNOWN_SESSION, "an unknown session's cookie"],
  ] as const) {
    const anonymous = php?.find((r) => r.mode === mode);
    const ratio = anonymous && noCookie ? anonymous.rps / noCookie.rps : undefined;
    checks.push({
      target: `SESSION_STORE=php, files: anonymous req/s, ${cookie} ≥ 0.8 × none`,
      measured:
        ratio === undefined ? 'not measured' : `${fixed(ratio)} × (${fixed(anonymous!.rps, 0)} against ${fixed(noCookie!.rps, 0)} req/s)`,
      met: ratio === undefined ? undefined : ratio >= 0.8,
    });
  }

  const cli = report.cli?.find((c) => c.client === 'got');
  const undici = report.cli?.find((c) => c.client === 'undici');
  checks.push({
    target: `CLI (got, --concurrency 16, 20 ms upstream): ≥ 80 % of the latency bound`,
    measured: cli
      ? `${fixed((100 * cli.linesPerSecond) / cli.boundPerSecond, 1)} % (${fixed(cli.linesPerSecond, 0)} of ${fixed(cli.boundPerSecond, 0)} lines/s)`
      : 'not measured',
    met: cli ? cli.linesPerSecond >= 0.8 * cli.boundPerSecond : undefined,
  });
  checks.push({
    target: `CLI (got): ≤ ${CLI_CPU_MS_PER_LINE} ms CPU per line (start-up apart)`,
    // The client alone in the same shape, and the same CLI on undici, in the same rounds: what the client itself costs a line.
    measured: cli
      ? `${fixed(cli.cpuMsPerLine, 3)} ms (start-up ${fixed(cli.startupCpuMs, 0)} ms once); got alone ${fixed(cli.clientAloneCpuMsPerCall, 3)} ms a call${cli.clientAloneCpuMsPerCall > CLI_CPU_MS_PER_LINE ? ', over the target by itself' : ''}, so the CLI's own work ${fixed(cli.cpuMsPerLine - cli.clientAloneCpuMsPerCall, 3)} ms a line${undici ? `; with undici ${fixed(undici.cpuMsPerLine, 3)} ms (undici alone ${fixed(undici.clientAloneCpuMsPerCall, 3)} ms)` : ''}`
      : 'not measured',
    met: cli ? cli.cpuMsPerLine <= CLI_CPU_MS_PER_LINE : undefined,
  });

  const offShare = service('undici') ? report.tracingOff.nsPerRequest / 10 / service('undici')!.cpuMsPer1000 : undefined;
  checks.push({
    target: 'tracing off: < 1 % of the CPU per request',
    measured: offShare === undefined ? 'not measured' : `${fixed(offShare, 3)} % (${fixed(report.tracingOff.nsPerRequest, 0)} ns)`,
    met: offShare === undefined ? undefined : offShare < 1,
  });

  // The probes are answered ahead of the endpoints' line: a busy instance is not restarted or taken out for it.
  const probes = report.fairShare?.rows.filter((row) => row.beside.startsWith('800 ') && row.probe.startsWith('GET /'));
  const slowest = probes?.length ? Math.max(...probes.map((row) => row.p99Ms)) : undefined;
  checks.push({
    target: `/healthz and /readyz beside 800 busy connections: p99 ≤ ${PROBE_P99_MS} ms`,
    measured:
      slowest === undefined
        ? 'not measured'
        : probes!.map((row) => `${row.probe.split(' ')[1]} p50 ${fixed(row.p50Ms, 1)}, p99 ${fixed(row.p99Ms, 1)} ms`).join('; '),
    met: slowest === undefined ? undefined : slowest <= PROBE_P99_MS,
  });

  // A session repeating one string is built once (CONTRACT "Running beside the PHP app": bounded by its own size).
  const repeated = report.phpSessions?.repeated;
  checks.push({
    target: `igbinary sessions repeating one 50 KB string (150, 600 KB): a decode ≤ ${REPEATED_MAX_MS} ms and ≤ ${REPEATED_MAX_MB} MB`,
    measured: repeated?.length
      ? repeated
          .map((r) =>
            r.medianMs === undefined
              ? `${r.bytes} B: ${r.failure}`
              : `${r.bytes} B: ${fixed(r.medianMs, 1)} ms (first ${fixed(r.firstMs!, 1)}), heap ${fixed(r.heapMb!, 1)} MB, RSS +${fixed(r.rssGrowthMb!, 1)} MB`,
          )
          .join('; ')
      : 'not measured',
    met: repeated?.length ? repeated.every(repeatedMet) : undefined,
  });

  // One entry per request (a change): the service against itself with the spool off, in the same rounds.
  const spoolOn = service('got');
  const spoolOff = service('got', true);
  const spoolShare = spoolOn && spoolOff ? (100 * (spoolOn.cpuMsPer1000 - spoolOff.cpuMsPer1000)) / spoolOff.cpuMsPer1000 : undefined;
  checks.push({
    target: 'activity spool: ≤ 5 % of the CPU per request, p99 not above the spool-off p99 + 10 %',
    measured:
      spoolShare === undefined
        ? 'not measured'
        : `${spoolShare >= 0 ? '+' : ''}${fixed(spoolShare, 1)} % (${fixed(spoolOn!.cpuMsPer1000, 0)} against ${fixed(spoolOff!.cpuMsPer1000, 0)} µs a request; p99 ${spoolOn!.p99} against ${spoolOff!.p99} ms; got, cookie+sqlite, 0 ms upstream)`,
    met: spoolShare === undefined ? undefined : spoolShare <= 5 && spoolOn!.p99 <= spoolOff!.p99 * 1.1,
  });
  // The same at one fixed rate (open loop): the tail of each side at the same load.
  const tail = report.spoolTail;
  checks.push({
    target: `activity spool at a fixed rate: p99.9 ≤ ${SPOOL_TAIL_LIMIT} × the spool-off p99.9, each upstream delay`,
    measured: tail.length
      ? tail
          .map(
            (r) =>
              `${r.delayMs} ms: ${fixed(r.on.p999 / r.off.p999)} × (${fixed(r.on.p999, 0)} against ${fixed(r.off.p999, 0)} ms at ${r.rate} req/s; an identical spool-off twin ${fixed(r.twin.p999 / r.off.p999)} ×; CPU ${fixed(r.on.cpuUsPerRequest, 0)} against ${fixed(r.off.cpuUsPerRequest, 0)} µs)`,
          )
          .join('; ')
      : 'not measured',
    met: tail.length ? tail.every(spoolTailMet) : undefined,
  });
  checks.push({
    target: `activity spool at a fixed rate: its own work measured apart ≤ ${SPOOL_COST_LIMIT} % of the spool-off CPU per request, each upstream delay`,
    measured: tail.length
      ? tail
          .map(
            (r) =>
              `${r.delayMs} ms: ${fixed(spoolCostShare(r), 1)} % (${fixed(r.spoolCost.cpuUsPerEntry, 1)} against ${fixed(r.off.cpuUsPerRequest, 0)} µs at ${r.rate} req/s)`,
          )
          .join('; ')
      : 'not measured',
    met: tail.length ? tail.every((r) => spoolCostShare(r) <= SPOOL_COST_LIMIT) : undefined,
  });
  return checks;
}
