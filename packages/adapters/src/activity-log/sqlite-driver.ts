import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Libsql from 'libsql';

const require = createRequire(import.meta.url);
const Database = require('libsql') as typeof Libsql;

/**
 * The SQLite driver: libsql, better-sqlite3's API with its binary prebuilt for every Node as an npm
 * optional dependency, so nothing is downloaded from elsewhere or compiled at install.
 */
export const SQLite: typeof Libsql = Database;
export type SqliteDatabase = Libsql.Database;

/**
 * Opens an existing file for reading only. libsql's constructor ignores `readonly` and
 * `fileMustExist` (it creates a missing file): the check and `query_only` stand in for them.
 */
export function openSqliteReadOnly(file: string): SqliteDatabase {
  if (!existsSync(file)) throw new Error(`no SQLite file at ${file}`);
  const db = new SQLite(file);
  db.pragma('query_only = 1');
  return db;
}
