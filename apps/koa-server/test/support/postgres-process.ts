import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether PostgreSQL's server programs are installed (`initdb`, `pg_ctl`), checked without making anything. */
export function postgresInstalled(): boolean {
  const version = existsSync('/usr/lib/postgresql') ? (readdirSync('/usr/lib/postgresql').sort().at(-1) ?? '') : '';
  return version !== '' && existsSync(`/usr/lib/postgresql/${version}/bin/initdb`);
}

/**
 * A private PostgreSQL server on its own port and data directory, that a test
 * may stop and start again without touching the shared one. Runs as the
 * `postgres` user when the tests run as root (PostgreSQL refuses root).
 */
export function postgresProcess(port: number) {
  const version = readdirSync('/usr/lib/postgresql').sort().at(-1) ?? '';
  const bin = (name: string) => `/usr/lib/postgresql/${version}/bin/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === 0
      ? execFileSync('runuser', ['-u', 'postgres', '--', bin(command), ...args], { stdio: 'pipe' })
      : execFileSync(bin(command), args, { stdio: 'pipe' });
  return {
    available: existsSync(bin('initdb')),
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    init() {
      asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    },
    start() {
      asPostgres('pg_ctl', [
        '-D',
        data,
        '-w',
        '-l',
        join(dir, 'log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        'start',
      ]);
    },
    stop() {
      asPostgres('pg_ctl', ['-D', data, '-w', '-m', 'immediate', 'stop']);
    },
    /** Deletes the data directory (the server stopped). */
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
