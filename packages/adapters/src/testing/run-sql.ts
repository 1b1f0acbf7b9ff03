import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';

/** Runs one statement through a connection of its own (tests: an old table, an ALTER). */
export async function runSql(url: string, statement: string): Promise<void> {
  const db = url.startsWith('postgres')
    ? new Kysely({ dialect: new PostgresDialect({ pool: new (await import('pg')).default.Pool({ connectionString: url, max: 1 }) }) })
    : new Kysely({ dialect: new MysqlDialect({ pool: (await import('mysql2')).createPool({ uri: url, connectionLimit: 1 }) }) });
  try {
    await sql.raw(statement).execute(db);
  } finally {
    await db.destroy();
  }
}
