import type { SpoolTailRow } from './spool-tail-bench.js';

/** The spool's p99.9 may be at most this many times the spool-off run's, at the same rate (CONTRACT "Activity log"). */
export const SPOOL_TAIL_LIMIT = 1.1;

const fixed = (n: number, digits = 0) => n.toFixed(digits);

/** Met at one delay: the median p99.9 with the spool within the limit of the spool-off one. */
export const spoolTailMet = (row: SpoolTailRow): boolean => row.on.p999 <= row.off.p999 * SPOOL_TAIL_LIMIT;

/** The fixed-rate comparison's table: each side's medians, the spread of p99.9 over the rounds, on / off. */
export function spoolTailLines(rows: readonly SpoolTailRow[]): string[] {
  if (rows.length === 0) return [];
  const lines = [
    '',
    '| spool tail (got, cookie+sqlite, fixed rate) | upstream delay | req/s (closed-loop, off) | rounds | spool | p50 ms | p99 ms | p99.9 ms (median) | p99.9 ms (least–most) | CPU µs / request | main thread waiting for a CPU, ms/s | checks |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    for (const [name, s] of [
      ['on', row.on],
      ['off', row.off],
    ] as const) {
      lines.push(
        `| ${name === 'on' ? 'spool on' : 'spool off'} | ${row.delayMs} ms | ${row.rate} (${fixed(row.closedLoopRps)}) | ${row.rounds} | ${name} | ${fixed(s.p50, 1)} | ${fixed(s.p99, 1)} | ${fixed(s.p999, 1)} | ${fixed(s.p999Min)}–${fixed(s.p999Max)} | ${fixed(s.cpuUsPerRequest)} | ${fixed(s.runDelayMsPerS)} | ${s.problems.length ? s.problems.join('; ') : `ok (${s.requests} requests)`} |`,
      );
    }
    const ratios = row.p999Ratios.map((r) => fixed(r, 2)).join(', ');
    lines.push(
      `| on / off | ${row.delayMs} ms | | | | ${fixed(row.on.p50 / row.off.p50, 2)} | ${fixed(row.on.p99 / row.off.p99, 2)} | ${fixed(row.on.p999 / row.off.p999, 2)} | by round: ${ratios} | ${fixed(row.on.cpuUsPerRequest / row.off.cpuUsPerRequest, 2)} | | |`,
    );
  }
  const probed = rows.filter((r) => r.on.probe && r.off.probe);
  if (probed.length) {
    lines.push(
      '',
      '| tail probe, all rounds | upstream delay | spool | seconds the loop stalled > 100 ms | of them with a GC pause ≥ 50 ms | longest loop delay ms | longest GC pause ms | longest writeSync ms | longest fdatasync ms |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of probed)
      for (const [name, p] of [
        ['on', row.on.probe!],
        ['off', row.off.probe!],
      ] as const)
        lines.push(
          `| spool ${name} | ${row.delayMs} ms | ${name} | ${p.stalledSeconds} | ${p.stalledWithGc} | ${fixed(p.loopMaxMs)} | ${fixed(p.gcMaxMs)} | ${name === 'on' ? fixed(p.writeMaxMs, 1) : '–'} | ${name === 'on' ? fixed(p.syncMaxMs) : '–'} |`,
        );
  }
  return lines;
}
