// The SQLite side of the activity log, in a worker thread: the driver is synchronous, and its
// writes (and waits for a lock) would otherwise take the event loop that answers requests.
import { parentPort, workerData } from 'node:worker_threads';
import { createPrivateFile } from '../fs/private-file.js';
import { SQLite } from './sqlite-driver.js';
import type { StoredActivity } from './activity-log-store.js';
import { INSERT_COLUMNS, createTableSql, fromRow, type Row } from './activity-log-schema.js';

export type SqliteRequest =
  | { readonly id: number; readonly op: 'write'; readonly rows: readonly StoredActivity[] }
  | { readonly id: number; readonly op: 'recent'; readonly limit: number }
  | { readonly id: number; readonly op: 'requestIds'; readonly ids: readonly string[] }
  | { readonly id: number; readonly op: 'ping' };

export type SqliteReply =
  | { readonly id: number; readonly ok: true; readonly result?: unknown }
  /** `code`: the driver's extended result code (SQLITE_BUSY, SQLITE_TOOBIG…), or UNKNOWN. */
  | { readonly id: number; readonly ok: false; readonly error: string; readonly code: string };

const failure = (id: number, error: unknown): SqliteReply => ({
  id,
  ok: false,
  error: error instanceof Error ? error.message : String(error),
  code: error instanceof SQLite.SqliteError ? error.code : 'UNKNOWN',
});

const { file, table } = workerData as { file: string; table: string };
const port = parentPort!;

try {
  // libsql would create a missing file 0644 (less the umask): the audit rows are for the owner only.
  if (file !== ':memory:') createPrivateFile(file);
  const db = new SQLite(file);
  // Waiting long for another process's lock only delays the retry the writer does anyway
  // (set first: opening a locked file waits too).
  db.pragma('busy_timeout = 20');
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL: a commit does not wait for fsync; a power cut may lose the last commits, a crash of the process does not.
  db.pragma('synchronous = NORMAL');
  db.defaultSafeIntegers(true);
  db.exec(createTableSql('sqlite', table));
  const insert = db.prepare(`INSERT INTO ${table} (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map(() => '?').join(', ')})`);
  // By hand, not db.transaction(): after an error SQLite has already rolled back (SQLITE_FULL does), and
  // the wrapper's own ROLLBACK then fails with "no transaction is active", hiding the error that counts.
  const insertAll = (rows: readonly StoredActivity[]) => {
    db.exec('BEGIN');
    try {
      for (const row of rows) insert.run(INSERT_COLUMNS.map((column) => row[column]));
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Rolled back by SQLite itself already.
      }
      throw error;
    }
  };
  const recent = db.prepare(`SELECT * FROM ${table} ORDER BY id DESC LIMIT ?`);
  const ping = db.prepare('SELECT 1');
  const requestIds = db.prepare(`SELECT DISTINCT request_id FROM ${table} WHERE request_id IN (SELECT value FROM json_each(?))`);

  port.on('message', (request: SqliteRequest) => {
    try {
      let result: unknown;
      if (request.op === 'write') insertAll(request.rows);
      else if (request.op === 'recent') result = (recent.all(request.limit) as Row[]).map(fromRow);
      else if (request.op === 'requestIds')
        result = (requestIds.all(JSON.stringify(request.ids)) as Array<{ request_id: string }>).map((row) => row.request_id);
      else ping.get();
      port.postMessage({ id: request.id, ok: true, result } satisfies SqliteReply);
    } catch (error) {
      port.postMessage(failure(request.id, error));
    }
  });
  port.postMessage({ id: 0, ok: true } satisfies SqliteReply);
} catch (error) {
  port.postMessage(failure(0, error));
}
