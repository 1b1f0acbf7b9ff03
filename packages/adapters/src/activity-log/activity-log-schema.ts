import type { SqlEngine } from './activity-log-url.js';
import type { StoredActivity } from './activity-log-store.js';

// The activity_log table, shared by every SQL engine. Columns that take values from a request are
// wide enough for anything the endpoints can produce within the largest body limit (64 MiB):
// `details` holds the posted field name, `user_id` the session's user id, `user_agent` a header.
// The HTTP layer bounds some of them too; the table does not count on it. What still does not fit
// (a value past MySQL's max_allowed_packet) is refused and set aside in the dead-letter file.

interface EngineTypes {
  /** The id and the timestamp, the first columns. */
  readonly keyAndTime: string;
  /** Up to a few MB: description, user_id, user_agent. */
  readonly text: string;
  /** Up to the body limit: details. */
  readonly longText: string;
  readonly tableOptions: string;
}

const TYPES: Record<SqlEngine, EngineTypes> = {
  sqlite: {
    keyAndTime: 'id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,',
    text: 'TEXT',
    longText: 'TEXT',
    tableOptions: '',
  },
  postgres: {
    keyAndTime: 'id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL,',
    text: 'TEXT',
    longText: 'TEXT',
    tableOptions: '',
  },
  mysql: {
    keyAndTime: 'id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(3) NOT NULL,',
    // TEXT is 64 KB; MEDIUMTEXT 16 MB, LONGTEXT 4 GB.
    text: 'MEDIUMTEXT',
    longText: 'LONGTEXT',
    // utf8mb4 explicitly: a server or database defaulting to utf8mb3 would refuse every emoji.
    tableOptions: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci',
  },
};

/** `CREATE TABLE IF NOT EXISTS` for `table` on `engine`. An existing table is left as it is. */
export function createTableSql(engine: SqlEngine, table: string): string {
  const { keyAndTime, text, longText, tableOptions } = TYPES[engine];
  // module, event_key and entity_type are the code's own constants; request_id is checked
  // against [\w.:-]{1,128}; client_ip is an IP address (IPv6 text is at most 45 characters).
  return `CREATE TABLE IF NOT EXISTS ${table} (${keyAndTime}
  module VARCHAR(64) NOT NULL,
  event_key VARCHAR(128) NOT NULL,
  description ${text} NOT NULL,
  entity_type VARCHAR(64) NOT NULL,
  entity_id BIGINT NOT NULL,
  details ${longText} NULL,
  user_id ${text} NOT NULL,
  request_id VARCHAR(128) NULL,
  client_ip VARCHAR(64) NULL,
  user_agent ${text} NULL)${tableOptions}`;
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
