import type { SpoolTailRow } from './spool-tail-bench.js';
import { SLOW_WRITE_MS } from './tail-probe-read.js';

/** The spool's p99.9 may be at most this many times the spool-off run's, at the same rate (CONTRACT "Activity log"). */
export const SPOOL_TAIL_LIMIT = 1.1;

const fixed = (n: number, digits = 0) => n.toFixed(digits);

/** Met at one delay: the p99.9 with the spool (every round's answers pooled) within the limit of the spool-off one. */
export const spoolTailMet = (row: SpoolTailRow): boolean => row.on.p999 <= row.off.p999 * SPOOL_TAIL_LIMIT;

/** The contract's bound on the spool's CPU, % of a request's. */
export const SPOOL_COST_LIMIT = 5;

/** The spool's own CPU an entry as a share of the spool-off service's CPU per request at the same rate, in %. */
export const spoolCostShare = (row: SpoolTailRow): number => (row.spoolCost.cpuUsPerEntry / row.off.cpuUsPerRequest) * 100;

/** The fixed-rate comparison's table: each side's latencies over its rounds pooled, the spread of p99.9 over the rounds, on / off. */
export function spoolTailLines(rows: readonly SpoolTailRow[]): string[] {
  if (rows.length === 0) return [];
  const lines = [
    '',
    '| spool tail (got, cookie+sqlite, fixed rate) | upstream delay | req/s (closed-loop, off) | rounds | spool | p50 ms | p99 ms | p99.9 ms (rounds pooled) | p99.9 ms (least–most of the rounds) | CPU µs / request | main thread waiting for a CPU, ms/s | checks |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const names = { on: 'spool on', off: 'spool off', twin: 'spool off, its twin' } as const;
  for (const row of rows) {
    for (const name of ['on', 'off', 'twin'] as const) {
      const s = row[name];
      lines.push(
        `| ${names[name]} | ${row.delayMs} ms | ${row.rate} (${fixed(row.closedLoopRps)}) | ${row.rounds} | ${name} | ${fixed(s.p50, 1)} | ${fixed(s.p99, 1)} | ${fixed(s.p999, 1)} | ${fixed(s.p999Min)}–${fixed(s.p999Max)} | ${fixed(s.cpuUsPerRequest)} | ${fixed(s.runDelayMsPerS)} | ${s.problems.length ? s.problems.join('; ') : `ok (${s.requests} requests)`} |`,
      );
    }
    for (const [name, side, ratios] of [
      ['on / off', row.on, row.p999Ratios],
      ["twin / off (the host's own spread)", row.twin, row.twinP999Ratios],
    ] as const)
      lines.push(
        `| ${name} | ${row.delayMs} ms | | | | ${fixed(side.p50 / row.off.p50, 2)} | ${fixed(side.p99 / row.off.p99, 2)} | ${fixed(side.p999 / row.off.p999, 2)} | by round: ${ratios.map((r) => fixed(r, 2)).join(', ')} | ${fixed(side.cpuUsPerRequest / row.off.cpuUsPerRequest, 2)} | | |`,
      );
  }
  lines.push(
    '',
    `| the spool's own work at the same rate, measured apart (spool-cost.ts) | upstream delay | req/s | its path: one entry a turn, appended, waited for, acknowledged, µs (least–most over ${rows[0]!.spoolCost.rounds} rounds) | its share of a 200 ms fdatasync, µs | CPU µs an entry | share of the spool-off service's CPU per request (target ≤ ${SPOOL_COST_LIMIT} %) |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| spool cost | ${row.delayMs} ms | ${row.rate} | ${fixed(row.spoolCost.pathUs, 1)} (${fixed(row.spoolCost.pathUsMin, 1)}–${fixed(row.spoolCost.pathUsMax, 1)}) | ${fixed(row.spoolCost.syncUsPerEntry, 1)} | ${fixed(row.spoolCost.cpuUsPerEntry, 1)} | ${fixed(spoolCostShare(row), 1)} % |`,
    ),
  );
  const probed = rows.filter((r) => r.on.probe && r.off.probe && r.twin.probe);
  if (probed.length) {
    lines.push(
      '',
      `| tail probe, all rounds | upstream delay | spool | seconds the loop stalled > 100 ms | of them with a GC pause ≥ 50 ms | longest loop delay ms | longest GC pause ms | longest writeSync ms | writeSyncs past ${SLOW_WRITE_MS} ms | longest fdatasync ms | spool batches (at a turn's end) | a batch's longest wait for its write, ms | batches that waited past ${SLOW_WRITE_MS} ms |`,
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of probed)
      for (const [name, p] of [
        ['on', row.on.probe!],
        ['off', row.off.probe!],
        ['off, its twin', row.twin.probe!],
      ] as const)
        lines.push(
          `| spool ${name} | ${row.delayMs} ms | ${name} | ${p.stalledSeconds} | ${p.stalledWithGc} | ${fixed(p.loopMaxMs)} | ${fixed(p.gcMaxMs)} | ${name === 'on' ? fixed(p.writeMaxMs, 1) : '–'} | ${name === 'on' ? p.slowWrites : '–'} | ${name === 'on' ? fixed(p.syncMaxMs) : '–'} | ${name === 'on' ? `${p.batches} (${p.turnEndBatches})` : '–'} | ${name === 'on' ? fixed(p.batchWaitMaxMs, 1) : '–'} | ${name === 'on' ? p.slowBatches : '–'} |`,
        );
  }
  return lines;
}
