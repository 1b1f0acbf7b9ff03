import { sql, type Kysely } from 'kysely';
import type { ServerEngine } from '../sql-dialect.js';
import { mysqlCharset, postgresCharset, type Charset } from './column-charsets.js';

// The activity table's columns as the database declares them (information_schema), read at connect:
// what each column can hold, so an entry that cannot fit is known before it is written.

interface ColumnBase {
  readonly name: string;
  /** The declared type, for messages: `varchar(255)`, `int(11)`, `text`. */
  readonly type: string;
  readonly nullable: boolean;
}

export interface TextColumn extends ColumnBase {
  readonly kind: 'text';
  /** Declared in characters (code points): VARCHAR(n), CHAR(n). */
  readonly maxCharacters: number | undefined;
  /** Declared in bytes of the charset: MySQL's TEXT types. */
  readonly maxBytes: number | undefined;
  readonly charset: Charset | undefined;
  /** A JSON column (PostgreSQL's jsonb stores no `\u0000`). */
  readonly json: boolean;
}

export interface IntegerColumn extends ColumnBase {
  readonly kind: 'integer';
  readonly min: bigint;
  readonly max: bigint;
}

/** A type not judged here (a timestamp, a decimal): the database decides. */
export interface OtherColumn extends ColumnBase {
  readonly kind: 'other';
}

export type ColumnLimit = TextColumn | IntegerColumn | OtherColumn;

/** The table's columns by lower-case name; empty when the table is not found. */
export type TableLimits = ReadonlyMap<string, ColumnLimit>;

export async function readTableLimits<DB>(engine: ServerEngine, db: Kysely<DB>, table: string): Promise<TableLimits> {
  return engine === 'postgres' ? readPostgresLimits(db, table) : readMysqlLimits(db, table);
}

interface MysqlColumnRow {
  readonly name: string;
  readonly dataType: string;
  readonly columnType: string;
  readonly maxCharacters: number | string | null;
  readonly maxBytes: number | string | null;
  readonly charset: string | null;
  readonly nullable: string;
}

async function readMysqlLimits<DB>(db: Kysely<DB>, table: string): Promise<TableLimits> {
  const { rows } = await sql<MysqlColumnRow>`SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType,
    CHARACTER_MAXIMUM_LENGTH AS maxCharacters, CHARACTER_OCTET_LENGTH AS maxBytes, CHARACTER_SET_NAME AS charset,
    IS_NULLABLE AS nullable FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table}`.execute(db);
  return new Map(rows.map((row) => [row.name.toLowerCase(), mysqlColumnLimit(row)]));
}

const INTEGER_BITS: Readonly<Record<string, number>> = {
  tinyint: 8,
  smallint: 16,
  mediumint: 24,
  int: 32,
  integer: 32,
  bigint: 64,
};

/** One MySQL/MariaDB column: VARCHAR/CHAR count characters, the TEXT types bytes; integers by size and sign. */
export function mysqlColumnLimit(row: MysqlColumnRow): ColumnLimit {
  const name = row.name.toLowerCase();
  const dataType = row.dataType.toLowerCase();
  const base = { name, type: row.columnType.toLowerCase(), nullable: row.nullable === 'YES' };
  const bits = INTEGER_BITS[dataType];
  if (bits !== undefined) return { ...base, kind: 'integer', ...integerRange(bits, /unsigned/i.test(row.columnType)) };
  if (dataType === 'varchar' || dataType === 'char') {
    return {
      ...base,
      kind: 'text',
      maxCharacters: numberOf(row.maxCharacters),
      maxBytes: undefined,
      charset: mysqlCharset(row.charset),
      json: false,
    };
  }
  if (dataType.endsWith('text')) {
    const charset = mysqlCharset(row.charset);
    // A byte bound in a charset not counted here is left to the database.
    const maxBytes = charset?.encoding === undefined ? undefined : numberOf(row.maxBytes);
    return { ...base, kind: 'text', maxCharacters: undefined, maxBytes, charset, json: false };
  }
  return { ...base, kind: 'other' };
}

interface PostgresColumnRow {
  readonly name: string;
  readonly dataType: string;
  readonly maxCharacters: number | string | null;
  readonly nullable: string;
}

async function readPostgresLimits<DB>(db: Kysely<DB>, table: string): Promise<TableLimits> {
  // Unquoted names are folded to lower case, as the store's statements write them.
  const { rows } = await sql<PostgresColumnRow>`SELECT column_name AS "name", data_type AS "dataType",
    character_maximum_length AS "maxCharacters", is_nullable AS "nullable" FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table.toLowerCase()}`.execute(db);
  const { rows: encoding } = await sql<{ encoding: string }>`SELECT current_setting('server_encoding') AS "encoding"`.execute(db);
  const charset = postgresCharset(encoding[0]?.encoding ?? '');
  return new Map(rows.map((row) => [row.name, postgresColumnLimit(row, charset)]));
}

const POSTGRES_INTEGER_BITS: Readonly<Record<string, number>> = { smallint: 16, integer: 32, bigint: 64 };

/** One PostgreSQL column: character types count characters, and no text value holds a NUL. */
export function postgresColumnLimit(row: PostgresColumnRow, charset: Charset): ColumnLimit {
  const maxCharacters = numberOf(row.maxCharacters);
  const base = {
    name: row.name,
    type: maxCharacters === undefined ? row.dataType : `${row.dataType}(${maxCharacters})`,
    nullable: row.nullable === 'YES',
  };
  const bits = POSTGRES_INTEGER_BITS[row.dataType];
  if (bits !== undefined) return { ...base, kind: 'integer', ...integerRange(bits, false) };
  if (['character varying', 'character', 'text'].includes(row.dataType)) {
    return { ...base, kind: 'text', maxCharacters, maxBytes: undefined, charset, json: false };
  }
  if (row.dataType === 'jsonb') return { ...base, kind: 'text', maxCharacters: undefined, maxBytes: undefined, charset, json: true };
  return { ...base, kind: 'other' };
}

function integerRange(bits: number, unsigned: boolean): { min: bigint; max: bigint } {
  const size = BigInt(bits);
  return unsigned ? { min: 0n, max: (1n << size) - 1n } : { min: -(1n << (size - 1n)), max: (1n << (size - 1n)) - 1n };
}

function numberOf(value: number | string | null): number | undefined {
  return value === null ? undefined : Number(value);
}
