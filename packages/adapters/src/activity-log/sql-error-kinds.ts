// Which driver errors mean "the store refuses this entry" (see ActivityStoreError). Decided from
// codes, never from messages: messages change with versions and locales. Everything else is
// `unavailable` (connection errors, 08xxx, 53xxx, 57Pxx, lock waits, deadlocks, unknown ones).

/**
 * PostgreSQL SQLSTATE classes caused by the values written: 22 data exception
 * (22001 too long, 22021 bad byte sequence, 22003 out of range…), 23 integrity
 * constraint, 54 program limit exceeded (a value or a statement too large).
 * Errno names such as ECONNRESET start with a letter, so they never match.
 */
export function isPostgresRefusal(error: unknown): boolean {
  return /^(22|23|54)[0-9A-Z]{3}$/.test(codeOf(error));
}

/** MySQL/MariaDB errors caused by the values written, by number. */
const MYSQL_REFUSALS = new Set([
  1048, // ER_BAD_NULL_ERROR
  1062, // ER_DUP_ENTRY
  1153, // ER_NET_PACKET_TOO_LARGE: the statement exceeds max_allowed_packet (a smaller batch may fit)
  1264, // ER_WARN_DATA_OUT_OF_RANGE
  1265, // WARN_DATA_TRUNCATED
  1292, // ER_TRUNCATED_WRONG_VALUE
  1300, // ER_INVALID_CHARACTER_STRING
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: e.g. an emoji into a utf8mb3 column
  1406, // ER_DATA_TOO_LONG
  1411, // ER_WRONG_VALUE_FOR_TYPE
  1451, // ER_ROW_IS_REFERENCED_2
  1452, // ER_NO_REFERENCED_ROW_2
  3140, // ER_INVALID_JSON_TEXT (MySQL)
  3819, // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
  4025, // ER_CONSTRAINT_FAILED (MariaDB)
]);

/** MySQL/MariaDB: a listed error number, or a non-fatal error of SQLSTATE class 22 or 23. */
export function isMysqlRefusal(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errno, sqlState, fatal } = error as { errno?: unknown; sqlState?: unknown; fatal?: unknown };
  if (typeof errno === 'number' && MYSQL_REFUSALS.has(errno)) return true;
  return fatal !== true && typeof sqlState === 'string' && /^(22|23)/.test(sqlState);
}

/**
 * PostgreSQL errors saying a column is not what the table's limits read at connect say: a value too
 * long (22001), out of range (22003), a character it cannot store (22021, 22P05), a NULL it does not
 * take (23502), a column that is not there (42703).
 */
export function isPostgresColumnError(error: unknown): boolean {
  return ['22001', '22003', '22021', '22P05', '23502', '42703'].includes(codeOf(error));
}

/** The same for MySQL/MariaDB, by error number. */
const MYSQL_COLUMN_ERRORS = new Set([
  1048, // ER_BAD_NULL_ERROR
  1054, // ER_BAD_FIELD_ERROR: an unknown column
  1264, // ER_WARN_DATA_OUT_OF_RANGE
  1265, // WARN_DATA_TRUNCATED
  1300, // ER_INVALID_CHARACTER_STRING
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1406, // ER_DATA_TOO_LONG
]);

export function isMysqlColumnError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errno } = error as { errno?: unknown };
  return typeof errno === 'number' && MYSQL_COLUMN_ERRORS.has(errno);
}

/** SQLite result codes caused by the values written (SQLITE_BUSY and SQLITE_LOCKED are not). */
export function isSqliteRefusal(code: string): boolean {
  return /^SQLITE_(TOOBIG|CONSTRAINT|MISMATCH|RANGE)/.test(code);
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';
}
