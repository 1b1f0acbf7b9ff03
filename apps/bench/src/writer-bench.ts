import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ActivityEntry } from '@cotizaciones/core';
import { bufferedActivityLog } from '@cotizaciones/adapters';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { dropTable } from '@cotizaciones/adapters/testing';
import { scratchDir } from './scratch-dir.js';

export interface WriterResult {
  readonly store: string;
  readonly entries: number;
  readonly entriesPerSecond: number;
  readonly written: number;
}

/** A change's entry as the service records it. */
export function benchEntry(i: number): ActivityEntry {
  return {
    createdAt: new Date(),
    module: 'Cotizaciones',
    eventKey: 'cotizaciones.update',
    description: `Actualizó la cotización #${i}`,
    entityType: 'cotizacion',
    entityId: BigInt(i),
    details: { field: 'estado' },
    userId: String(i % 500),
    requestId: `req-${i}`,
    clientIp: '127.0.0.1',
    userAgent: 'bench',
  };
}

/** Records `entries` entries as requests would (one at a time) and times until all are written. */
export async function benchWriter(name: string, url: string, entries: number): Promise<WriterResult> {
  const table = `activity_log_writer_${randomBytes(4).toString('hex')}`;
  const store = await openSqlActivityLogStore(url, { table });
  const log = bufferedActivityLog(store, { maxQueue: entries });
  const started = performance.now();
  for (let i = 1; i <= entries; i += 1) {
    void log.record(benchEntry(i));
    // Let the writer run between bursts, as it would between requests.
    if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await log.flush();
  const seconds = (performance.now() - started) / 1000;
  const { written } = log.stats();
  await log.close();
  await dropTable(url, table);
  return { store: name, entries, entriesPerSecond: entries / seconds, written };
}

export function sqliteWriterUrl(): string {
  return `sqlite:${join(scratchDir('writer-'), 'activity.db')}`;
}
