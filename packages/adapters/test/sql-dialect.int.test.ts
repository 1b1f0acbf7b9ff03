import { describe, expect, it, vi } from 'vitest';
import { mysqlPool, postgresPool } from '../src/sql-dialect.js';
import { missing, runSql, serviceUrls } from '../src/testing/index.js';

// The server ends a connection the pool has lent out (a restart, an administrator's kill): the
// process lives on, the loss is reported, and the pool's next query gets a fresh connection.
const urls = serviceUrls();

describe.skipIf(missing('PostgreSQL', urls.postgres))('postgresPool against a real PostgreSQL', () => {
  it('reports a checked-out connection the server terminates, instead of ending the process', async () => {
    const reported: Error[] = [];
    const pool = await postgresPool(urls.postgres!, { maxConnections: 2, onConnectionError: (error) => reported.push(error) });
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await runSql(urls.postgres!, `SELECT pg_terminate_backend(${rows[0]!.pid})`);
      await vi.waitFor(() => expect(reported.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(reported[0]!.message).toMatch(/terminat/i);
      client.release(reported[0]);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});

describe.skipIf(missing('MySQL/MariaDB', urls.mysql))('mysqlPool against a real MariaDB', () => {
  it('lives on when the server kills a checked-out connection', async () => {
    const pool = await mysqlPool(urls.mysql!, { maxConnections: 2 });
    try {
      const connection = await pool.promise().getConnection();
      const [[row]] = (await connection.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
      const ended = new Promise<Error>((resolve) => connection.connection.once('error', resolve));
      await runSql(urls.mysql!, `KILL ${row.id}`);
      expect((await ended).message).toMatch(/closed|lost|kill/i);
      connection.release();
      const [rows] = await pool.promise().query('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.promise().end();
    }
  });
});
