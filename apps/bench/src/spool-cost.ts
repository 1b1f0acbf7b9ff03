import { join } from 'node:path';
import { openSpool } from '@cotizaciones/adapters';
import { scratchDir } from './scratch-dir.js';
import { benchEntry } from './writer-bench.js';

export interface SpoolCost {
  /** CPU per entry of the spool's work on a request's path and after it: the synchronous append, and its share of one acknowledgement line per batch of 16. */
  readonly usPerEntry: number;
  readonly entries: number;
}

/**
 * The spool's cost per entry, timed in this process on the scratch folder's disk: the service has no
 * spool-off setting to compare against (every entry is spooled), so its share of the CPU per request
 * is this figure against the service's own, from the same run.
 */
export function measureSpoolCost(entries = 20_000): SpoolCost {
  const round = () => {
    const spool = openSpool(join(scratchDir('spool-'), 'spool'), { syncIntervalMs: 0 });
    const started = process.cpuUsage();
    let batch = [];
    for (let i = 0; i < entries; i += 1) {
      const appended = spool.append(benchEntry(i));
      if (!appended.ok) throw new Error(`the spool did not take an entry: ${appended.reason}`);
      batch.push(appended.ticket);
      if (batch.length === 16) {
        spool.acknowledge(batch);
        batch = [];
      }
    }
    const used = process.cpuUsage(started);
    spool.close();
    return (used.user + used.system) / entries;
  };
  round();
  return { usPerEntry: Math.min(round(), round(), round()), entries };
}
