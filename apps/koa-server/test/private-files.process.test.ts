import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN, startProcess } from './support/process.js';
import { cookieHeader, FIELD_PATH, form } from './support/service.js';

const dir = mkdtempSync(join(tmpdir(), 'private-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the default ./data the server creates', () => {
  it('is 0700, and the SQLite log (with its -wal and -shm) and the spool in it are 0600, under a umask of 022', async () => {
    // The child inherits the umask: a container's usual one, which leaves files 0644 and folders 0755 by default.
    const umask = process.umask(0o022);
    let server: Awaited<ReturnType<typeof startProcess>>;
    try {
      // Every activity-log file at its default place, in ./data of the server's working folder.
      server = await startProcess({ ACTIVITY_LOG_SPOOL: './data/activity-spool' }, MAIN, { cwd: dir });
    } finally {
      process.umask(umask);
    }
    try {
      const cookie = cookieHeader(await fetch(`${server.url}/dev/login`, { method: 'POST', body: form({ id: '3', name: 'Demo' }) }));
      const update = await fetch(`${server.url}${FIELD_PATH}`, {
        method: 'POST',
        body: form({ id: '12', field: 'estado', value: 'ok' }),
        headers: { cookie },
      });
      expect(await update.text()).toBe('{"ok":true}');
      // /dev/activity writes what is pending before it reads: the row is in the database.
      expect(await (await fetch(`${server.url}/dev/activity`)).json()).toHaveLength(1);

      const data = join(dir, 'data');
      const spool = join(data, 'activity-spool');
      expect(modeOf(data)).toBe('700');
      expect(modeOf(spool)).toBe('700');
      const files = [
        ...['activity.db', 'activity.db-wal', 'activity.db-shm'].map((name) => join(data, name)),
        ...readdirSync(spool).map((name) => join(spool, name)),
      ];
      expect(files.length).toBeGreaterThan(3);
      expect(Object.fromEntries(files.map((file) => [file, modeOf(file)]))).toEqual(Object.fromEntries(files.map((file) => [file, '600'])));
    } finally {
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      await exited;
    }
  });
});
