import { randomBytes } from 'node:crypto';
import type { ActivityEntry } from '@cotizaciones/core';
import { openSqlActivityLogStore } from '@cotizaciones/adapters/sql';
import { dropTable, oldActivityTableSql, runSql, sampleEntry } from '@cotizaciones/adapters/testing';

// What checking an entry against the table's column limits (the store's refusalOf) costs for entries
// that fit, on the service's own table and on a legacy one (utf8mb3 and TEXT on MariaDB, VARCHAR
// columns on both): nanoseconds per entry over a timed loop.
//   node dist/entry-fit-bench.js   (TEST_MYSQL_URL / TEST_POSTGRES_URL, else the local test databases)

const targets = [
  { name: 'MariaDB', url: process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test', mysql: true },
  { name: 'PostgreSQL', url: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test', mysql: false },
];
const ROUNDS = 20;
const ENTRIES = 10_000;

/** Fitting entries as the endpoints record them, each its own objects. */
const entries: ActivityEntry[] = Array.from({ length: ENTRIES }, (_, i) =>
  sampleEntry({
    entityId: BigInt(i + 1),
    requestId: `req-${i}-${randomBytes(6).toString('hex')}`,
    description: `Actualizó la cotización #${i}`,
    details: { field: i % 2 === 0 ? 'estado' : 'descripción', value: `valor ${i}` },
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  }),
);

async function measure(name: string, url: string, legacy: string | undefined): Promise<void> {
  const table = `activity_log_b${randomBytes(4).toString('hex')}`;
  if (legacy) await runSql(url, legacy.replace('activity_log_placeholder', table));
  const store = await openSqlActivityLogStore(url, { table });
  try {
    const refusalOf = (entry: ActivityEntry) => store.refusalOf?.(entry);
    let refused = 0;
    for (const entry of entries) if (refusalOf(entry)) refused += 1; // Warm-up, and every entry must fit.
    if (refused > 0) throw new Error(`${refused} entries refused: not a bench of fitting entries`);
    const perEntry: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const start = process.hrtime.bigint();
      for (const entry of entries) refused += refusalOf(entry) ? 1 : 0;
      perEntry.push(Number(process.hrtime.bigint() - start) / ENTRIES);
    }
    perEntry.sort((a, b) => a - b);
    const median = perEntry[Math.floor(ROUNDS / 2)] ?? NaN;
    console.log(`${name.padEnd(34)} refusalOf, fitting entries: median ${median.toFixed(0)} ns/entry (best ${perEntry[0]?.toFixed(0)})`);
  } finally {
    await store.close();
    await dropTable(url, table);
  }
}

for (const { name, url, mysql } of targets) {
  await measure(`${name}, the service's table`, url, undefined);
  await measure(`${name}, a legacy table${mysql ? ' (utf8mb3)' : ''}`, url, oldActivityTableSql(mysql, 'activity_log_placeholder'));
}
