import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';

/** Removes a test table through a connection of its own. */
export async function dropTable(url: string, table: string): Promise<void> {
  if (url.startsWith('sqlite:')) return;
  const db = url.startsWith('postgres')
    ? new Kysely({ dialect: new PostgresDialect({ pool: new (await import('pg')).default.Pool({ connectionString: url, max: 1 }) }) })
    : new Kysely({ dialect: new MysqlDialect({ pool: (await import('mysql2')).createPool({ uri: url, connectionLimit: 1 }) }) });
  await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
  await db.destroy();
}
