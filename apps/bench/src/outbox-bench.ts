import { join } from 'node:path';
import type { ActivityEntry } from '@cotizaciones/core';
import { entryLine, openSpool, type ActivitySpool } from '@cotizaciones/adapters';
import { SQLite } from '@cotizaciones/adapters/testing';
import { scratchDir } from './scratch-dir.js';
import { benchEntry } from './writer-bench.js';

/**
 * The spool's segments against a local SQLite outbox table (WAL, synchronous=NORMAL, the entry's
 * line inserted, acknowledged by DELETE by id), measured the way the spool was chosen: each turn
 * of the event loop appends the entries its requests recorded in one go (one `writeSync`, or one
 * transaction), and each store write acknowledges its batch (one acknowledgement line, or one DELETE
 * transaction). Rounds of both are interleaved in one run; prints CPU and wall µs per entry.
 *
 * `npm run bench:outbox -w @cotizaciones/bench` (ENTRIES, TURN, BATCH, ROUNDS in the environment).
 */
const ENTRIES = Number(process.env.ENTRIES ?? 20_000);
/** Entries per turn: what 32 connections answered together bring. */
const TURN = Number(process.env.TURN ?? 8);
/** Entries per store write, each acknowledged together. */
const BATCH = Number(process.env.BATCH ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
/** One side alone (`segments` or `sqlite`), to count its system calls under strace. */
const ONLY = process.env.ONLY;

interface Outbox {
  /** Appends the turn's entries; settles once they are written. */
  append(entries: readonly ActivityEntry[]): Promise<unknown[]>;
  acknowledge(tickets: readonly unknown[]): void;
  close(): void;
}

function segmentsOutbox(): Outbox {
  const spool: ActivitySpool = openSpool(join(scratchDir('outbox-spool-'), 'spool'), { adopt: false });
  return {
    async append(entries) {
      const tickets = [];
      let written: Promise<unknown> | undefined;
      for (const entry of entries) {
        const appended = spool.append(entry);
        if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
        tickets.push(appended.ticket);
        written = appended.written;
      }
      await written;
      return tickets;
    },
    acknowledge: (tickets) => spool.acknowledge(tickets as Parameters<ActivitySpool['acknowledge']>[0]),
    close: () => void spool.close(),
  };
}

function sqliteOutbox(): Outbox {
  const db = new SQLite(join(scratchDir('outbox-sqlite-'), 'outbox.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE outbox (id INTEGER PRIMARY KEY, line TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO outbox (line) VALUES (?)');
  const remove = db.prepare('DELETE FROM outbox WHERE id = ?');
  // The entry's line, as the spool writes it.
  const insertAll = db.transaction((entries: readonly ActivityEntry[]) =>
    entries.map((entry) => insert.run(entryLine(entry)).lastInsertRowid),
  );
  const removeAll = db.transaction((ids: readonly unknown[]) => {
    for (const id of ids) remove.run(id);
  });
  return {
    // At the turn's end, as the spool's group commit under load.
    append: (entries) => new Promise((resolve) => setImmediate(() => resolve(insertAll(entries)))),
    acknowledge: (ids) => void removeAll(ids),
    close: () => db.close(),
  };
}

async function round(open: () => Outbox): Promise<{ cpuUs: number; wallUs: number }> {
  const outbox = open();
  const started = performance.now();
  const cpu = process.cpuUsage();
  let unacknowledged: unknown[] = [];
  for (let done = 0; done < ENTRIES; done += TURN) {
    unacknowledged.push(...(await outbox.append(Array.from({ length: TURN }, (_, k) => benchEntry(done + k + 1)))));
    if (unacknowledged.length >= BATCH) {
      outbox.acknowledge(unacknowledged);
      unacknowledged = [];
    }
  }
  outbox.acknowledge(unacknowledged);
  const used = process.cpuUsage(cpu);
  const wallUs = ((performance.now() - started) * 1000) / ENTRIES;
  outbox.close();
  return { cpuUs: (used.user + used.system) / ENTRIES, wallUs };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const kinds = Object.fromEntries(
  Object.entries({ segments: segmentsOutbox, sqlite: sqliteOutbox }).filter(([kind]) => ONLY === undefined || kind === ONLY),
) as Record<'segments' | 'sqlite', () => Outbox>;
const results = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, [] as Array<{ cpuUs: number; wallUs: number }>]));
// A warm-up round of each, not counted.
for (const open of Object.values(kinds)) await round(open);
for (let r = 0; r < ROUNDS; r += 1) {
  const order = r % 2 === 0 ? Object.keys(kinds) : Object.keys(kinds).reverse();
  for (const kind of order) results[kind]!.push(await round(kinds[kind as keyof typeof kinds]));
}
console.log(`outbox bench: ${ENTRIES} entries a round, ${TURN} a turn, acknowledged ${BATCH} at a time, ${ROUNDS} interleaved rounds`);
for (const [kind, list] of Object.entries(results))
  console.log(
    `${kind.padEnd(9)} CPU µs/entry median ${median(list.map((r) => r.cpuUs)).toFixed(1)} (${list.map((r) => r.cpuUs.toFixed(1)).join(' ')}); ` +
      `wall µs/entry median ${median(list.map((r) => r.wallUs)).toFixed(1)}`,
  );
