import { SessionUnavailableError } from '@cotizaciones/core';
import { sqlConnection, SqlFailure, type SqlConnection, type SqlRow } from './pdo-connection.js';
import type { PdoColumns, PdoSavePath } from './pdo-table.js';
import { readBatches } from './read-batches.js';
import { expiryDue, readyWithin, type PhpSaveHandlerStore, type RewriteResult, type StoredSession } from './save-handler-store.js';

export interface PdoStoreOptions {
  readonly database: PdoSavePath;
  /** `table` or `schema.table`, each part already checked as an identifier. */
  readonly table: readonly string[];
  readonly columns: PdoColumns;
  readonly gcMaxLifetimeSeconds: number;
  readonly maxBytes: number;
  readonly now: () => number;
  readonly statementTimeoutMs?: number;
  readonly onConnectionError?: (error: Error) => void;
  /** Opens the connection; tests wrap the real one to see what the driver returned. */
  readonly connect?: typeof sqlConnection;
}

const ABSENT: StoredSession = { kind: 'absent' };
/** Sessions read by one statement at most. */
const MAX_BATCH = 16;
/** Read statements under way at once: the pool's connections, less some for touches and rewrites. */
const IN_FLIGHT_BATCHES = 6;

/**
 * A session table written by the PHP app's PDO `SessionHandlerInterface` (Symfony's PdoSessionHandler
 * schema by default): one row a session, the `session_encode` string in the data column. A row is
 * written whole by one statement, so every read is final. Expiry is the row's own: the lifetime column
 * holds the expiry's Unix time, or (older layouts, a value below the time column) a duration added to
 * the time column; an expired row is absent. The `expiry` touch moves it as PdoSessionHandler's
 * updateTimestamp does (time = now, the expiry by as much); the `activity` rewrite is a compare-and-set
 * UPDATE whose WHERE holds the data, time and lifetime read, so a PHP write since the read matches no
 * row and is never replaced.
 */
export function phpPdoStore(options: PdoStoreOptions): PhpSaveHandlerStore {
  const { engine } = options.database;
  const quote = (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const table = options.table.map(quote).join('.');
  const [id, data, lifetime, time] = [options.columns.id, options.columns.data, options.columns.lifetime, options.columns.time].map(quote);
  // Byte length without reading the value: PostgreSQL and SQLite measure a TEXT column in bytes too.
  const length = engine === 'mysql' ? `LENGTH(${data})` : `octet_length(${data})`;
  const expiry = `CASE WHEN ${lifetime} < ${time} THEN ${lifetime} + ${time} ELSE ${lifetime} END`;
  // The value read, compared byte for byte (MySQL would compare a TEXT column by its collation).
  const sameData = engine === 'mysql' ? `${data} = CAST(? AS BINARY)` : `${data} = ?`;
  // The expiry moved as PHP's write moves it; MySQL assigns left to right, so the lifetime, which reads the old time, comes first.
  // (lifetime - time) first: never negative in that branch (MySQL's UNSIGNED columns), never past INTEGER (PostgreSQL's).
  const moved = `${lifetime} = CASE WHEN ${lifetime} < ${time} THEN ${lifetime} ELSE (${lifetime} - ${time}) + ? END, ${time} = ?`;
  // The length decides, in the same statement, whether the value is sent at all.
  const readOne = `SELECT ${length} AS n, CASE WHEN ${length} <= ? THEN ${data} END AS d, ${lifetime} AS l, ${time} AS t FROM ${table} WHERE ${id} = ?`;
  const sql = {
    read: readOne,
    // Sessions asked for at once, one branch each (its own `id = ?`, as a single read compares), tagged with its place.
    readMany: (count: number) =>
      Array.from({ length: count }, (_, i) => readOne.replace('SELECT ', `SELECT ${i} AS i, `)).join(' UNION ALL '),
    touch: `UPDATE ${table} SET ${moved} WHERE ${id} = ? AND ${time} < ? AND ${expiry} >= ?`,
    rewrite: `UPDATE ${table} SET ${data} = ?, ${moved} WHERE ${id} = ? AND ${time} = ? AND ${lifetime} = ? AND ${sameData}`,
    // The table and its four columns, as a statement that reads no row.
    check: `SELECT ${id}, ${data}, ${lifetime}, ${time} FROM ${table} WHERE 1 = 0`,
  };
  const describeTable = `${options.table.join('.')} (${Object.values(options.columns).join(', ')})`;

  const statementTimeoutMs = options.statementTimeoutMs ?? 2_000;
  let connection: Promise<SqlConnection> | undefined;
  const connected = () =>
    (connection ??= (options.connect ?? sqlConnection)(options.database, {
      statementTimeoutMs,
      lockWaitMs: 2_000,
      onConnectionError: options.onConnectionError,
    }).catch((error: unknown) => {
      connection = undefined;
      throw error;
    }));

  async function call<T>(command: (db: SqlConnection) => Promise<T>): Promise<T> {
    try {
      return await command(await connected());
    } catch (error) {
      if (error instanceof SessionUnavailableError) throw error;
      // The driver's words without its error object: mysql2's holds the statement's values (the session id).
      const said = error instanceof SqlFailure ? error.message : 'the database could not be reached';
      throw new SessionUnavailableError(`the PHP session table ${describeTable} in ${engine}: ${said}`);
    }
  }

  const nowSeconds = () => Math.floor(options.now() / 1000);

  /** The row, its bytes only if within the bound; undefined when there is none or it has expired. */
  async function readRow(db: SqlConnection, sessionId: string): Promise<Row | undefined> {
    const row = await db.first(sql.read, [options.maxBytes, sessionId]);
    return row && unexpired(rowOf(row));
  }

  function unexpired(found: Row): Row | undefined {
    const expiresAt = found.lifetime < found.time ? found.lifetime + found.time : found.lifetime;
    return expiresAt < nowSeconds() ? undefined : found;
  }

  // The reads asked for while statements are under way go together, one statement each round trip
  // instead of one per request: each round trip's write and wake-up of the server cost more than the
  // read. SQLite, read in process, gains the same way: each statement is a read transaction, its
  // locks and checks of the file a handful of system calls.
  const batched = readBatches<string, Row | undefined>({
    maxBatch: MAX_BATCH,
    maxInFlight: IN_FLIGHT_BATCHES,
    waitMs: statementTimeoutMs,
    timedOut: () => new SqlFailure(`no statement free within ${statementTimeoutMs} ms`),
    async run(ids) {
      const db = await connected();
      const rows = await db.query(
        sql.readMany(ids.length),
        ids.flatMap((sessionId) => [options.maxBytes, sessionId]),
      );
      const found: Array<Row | undefined> = ids.map(() => undefined);
      for (const row of rows) found[Number(row['i'])] = unexpired(rowOf(row));
      return found;
    },
  });

  async function rewrite(
    db: SqlConnection,
    sessionId: string,
    change: (bytes: Uint8Array) => Uint8Array | undefined,
  ): Promise<RewriteResult> {
    const row = await readRow(db, sessionId);
    if (!row) return 'absent';
    if (row.raw === null) return 'unchanged';
    const next = change(row.bytes);
    if (next === undefined) return 'unchanged';
    // Written as the column gave it (a TEXT column's value as text), compared with exactly what was read.
    const value = typeof row.raw === 'string' ? Buffer.from(next).toString('utf8') : Buffer.from(next);
    const now = nowSeconds();
    const changed = await db.execute(sql.rewrite, [value, now, now, sessionId, row.rawTime, row.rawLifetime, row.raw]);
    return changed === 1 ? 'written' : 'yielded';
  }

  async function check(): Promise<void> {
    await call((db) => db.query(sql.check, []));
  }

  return {
    read: (sessionId) =>
      call(async () => {
        const row = await batched.get(sessionId);
        if (!row) return ABSENT;
        if (row.raw === null) return { kind: 'refused', reason: 'oversized', detail: `${row.length} bytes` };
        return { kind: 'data', bytes: row.bytes, final: true, modifiedMs: row.time * 1000 };
      }),
    async touchExpiry(sessionId, modifiedMs) {
      if (!expiryDue(modifiedMs, options.now(), options.gcMaxLifetimeSeconds)) return;
      const now = nowSeconds();
      await call((db) => db.execute(sql.touch, [now, now, sessionId, now, now]));
    },
    rewrite: (sessionId, change) => call((db) => rewrite(db, sessionId, change)),
    ping: check,
    ready: (timeoutMs) => readyWithin(check, timeoutMs),
    describe() {
      const where = engine === 'sqlite' ? `sqlite file ${options.database.url}` : engine;
      return `pdo session table ${describeTable} in ${where}`;
    },
    async close() {
      const opened = connection;
      connection = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

interface Row {
  /** The data column as the driver gave it (bytes, or text for a TEXT column); null when over the bound. */
  readonly raw: Uint8Array | string | null;
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly lifetime: number;
  readonly time: number;
  /** The lifetime and time columns as given, for the compare-and-set. */
  readonly rawLifetime: unknown;
  readonly rawTime: unknown;
}

function rowOf(row: SqlRow): Row {
  // A NULL data column is an empty session, not an oversized one.
  // libsql gives a BLOB as an ArrayBuffer.
  const given = row['n'] === null ? '' : (row['d'] as ArrayBuffer | Uint8Array | string | null | undefined);
  const raw = given instanceof ArrayBuffer ? Buffer.from(given) : given;
  return {
    raw: raw ?? null,
    bytes: raw == null ? new Uint8Array() : typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw,
    length: Number(row['n']),
    lifetime: Number(row['l']),
    time: Number(row['t']),
    rawLifetime: row['l'],
    rawTime: row['t'],
  };
}
