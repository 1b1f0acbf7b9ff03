import { sqlEngineOf, type SqlEngine } from '../activity-log/activity-log-url.js';

// The light part of the `pdo` handler's settings: the database, the table and its columns, checked at start-up.

/** `session.save_path` for `pdo`: the database in the activity log's URL forms. */
export interface PdoSavePath {
  readonly engine: SqlEngine;
  /** `postgres://…`, `mysql://…` as given; for SQLite, the file. */
  readonly url: string;
}

/** The four columns of a PDO session table, as PdoSessionHandler names them by default. */
export interface PdoColumns {
  readonly id: string;
  readonly data: string;
  /** The expiry's Unix time (current Symfony), or a duration in seconds added to `time` (older layouts). */
  readonly lifetime: string;
  /** When the row was last written or touched, Unix time. */
  readonly time: string;
}

export const DEFAULT_PDO_TABLE = 'sessions';
export const DEFAULT_PDO_COLUMNS: PdoColumns = { id: 'sess_id', data: 'sess_data', lifetime: 'sess_lifetime', time: 'sess_time' };
const COLUMN_ROLES = ['id', 'data', 'lifetime', 'time'] as const;

/** An SQL identifier that needs no escaping in any of the three dialects (quoted anyway). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

export function parsePdoSavePath(text: string): PdoSavePath {
  const engine = sqlEngineOf(text);
  if (engine === undefined) throw new Error('expected the database as mysql://…, postgres://… or sqlite:<file>');
  if (engine === 'sqlite') {
    const file = text.slice('sqlite:'.length);
    if (file === '' || file === ':memory:') throw new Error('sqlite: needs the file the PHP app writes');
    return { engine, url: file };
  }
  if (!URL.canParse(text)) throw new Error('is not a URL: expected mysql://user:password@host:port/database or postgres://…');
  return { engine, url: text };
}

/** `PHP_SESSION_PDO_TABLE`: a table name, or `schema.table`. */
export function parsePdoTable(text: string): string[] {
  const parts = text.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part)))
    throw new Error('is not a table name: letters, digits, _ and $ (not first), up to 63 each, optionally schema.table');
  return parts;
}

/**
 * `PHP_SESSION_PDO_COLUMNS`: the id, data, lifetime and time columns, in that order
 * (`sess_id,sess_data,sess_lifetime,sess_time`), or named in any order (`id=…,data=…,lifetime=…,time=…`).
 */
export function parsePdoColumns(text: string): PdoColumns {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length !== 4) throw new Error('expected four columns: id,data,lifetime,time (or id=…,data=…,lifetime=…,time=…)');
  const named = entries.every((entry) => entry.includes('='));
  const columns: Record<string, string> = {};
  for (const [i, entry] of entries.entries()) {
    const [role, name] = named ? entry.split('=', 2).map((part) => part.trim()) : [COLUMN_ROLES[i], entry];
    if (role === undefined || name === undefined || !(COLUMN_ROLES as readonly string[]).includes(role))
      throw new Error(`"${entry}": expected id, data, lifetime or time as the name before "="`);
    if (columns[role] !== undefined) throw new Error(`the ${role} column is given twice`);
    if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a column name: letters, digits, _ and $ (not first), up to 63`);
    columns[role] = name;
  }
  if (new Set(Object.values(columns)).size !== 4) throw new Error('the four columns must be different');
  return columns as unknown as PdoColumns;
}
