import type { SqlEngine } from './activity-log-url.js';
import type { StoredActivity } from './activity-log-store.js';

// The activity_log table, shared by every SQL engine; only the key and the timestamp differ.

const COLUMNS = `
  module VARCHAR(64) NOT NULL,
  event_key VARCHAR(128) NOT NULL,
  description TEXT NOT NULL,
  entity_type VARCHAR(64) NOT NULL,
  entity_id BIGINT NOT NULL,
  details TEXT NULL,
  user_id VARCHAR(64) NOT NULL,
  request_id VARCHAR(128) NULL,
  client_ip VARCHAR(64) NULL,
  user_agent TEXT NULL`;

// The id and the timestamp are the only columns whose type differs by engine.
const KEY_AND_TIME: Record<SqlEngine, string> = {
  sqlite: 'id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,',
  postgres: 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL,',
  mysql: 'id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(3) NOT NULL,',
};

/** `CREATE TABLE IF NOT EXISTS` for `table` on `engine`. */
export function createTableSql(engine: SqlEngine, table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (${KEY_AND_TIME[engine]}${COLUMNS})`;
}

/** A table name safe to put into SQL as it is. */
export function checkedTableName(table: string | undefined): string {
  const name = table ?? 'activity_log';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid table name: ${name}`);
  return name;
}

export const INSERT_COLUMNS = [
  'created_at',
  'module',
  'event_key',
  'description',
  'entity_type',
  'entity_id',
  'details',
  'user_id',
  'request_id',
  'client_ip',
  'user_agent',
] as const satisfies ReadonlyArray<keyof StoredActivity>;

/** A column value as the drivers return them. */
export type Cell = string | number | bigint | Date | null;
export type Row = { [K in keyof StoredActivity | 'id']: Cell };

/** A row read back, whatever the driver's types. */
export function fromRow(row: Row): StoredActivity {
  const text = (value: Cell) => (value === null ? null : String(value));
  const createdAt = row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at);
  return {
    created_at: createdAt,
    module: String(row.module),
    event_key: String(row.event_key),
    description: String(row.description),
    entity_type: String(row.entity_type),
    entity_id: String(row.entity_id),
    details: text(row.details),
    user_id: String(row.user_id),
    request_id: text(row.request_id),
    client_ip: text(row.client_ip),
    user_agent: text(row.user_agent),
  };
}
