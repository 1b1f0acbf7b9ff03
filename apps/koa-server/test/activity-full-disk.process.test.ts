import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inMemoryActivityLogStore, openSpool, replayCapturedLog } from '@cotizaciones/adapters';
import { missing, openSqliteReadOnly, startStubUpstream } from '@cotizaciones/adapters/testing';
import { expectAnswer } from './support/contract-headers.js';
import { startProcess } from './support/process.js';
import { fillDisk } from './support/fill-disk.js';
import { until } from './support/until.js';
import { FIELD_PATH, SESSION_KEY, TOKEN, cookieHeader, form } from './support/service.js';

/** A 600 KiB tmpfs: mounting needs root. */
const root = process.getuid?.() === 0;
if (!root) console.warn('\n[full disk] SKIPPING: mounting a small tmpfs needs root\n');

describe.skipIf(missing('root (the test mounts a small file system)', root))(
  'a full disk under the SQLite log, the spool and the dead-letter file',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=600k', 'tmpfs', dir]);
    afterAll(() => {
      // Lazy: a server still closing its files (a failed test's) must not keep the mount.
      execFileSync('umount', ['--lazy', dir]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('writing resumes once space returns; at a stop with the disk still full, each entry not written goes whole to stderr: none dropped silently', async () => {
      const db = join(dir, 'activity.db');
      const spool = join(dir, 'spool');
      const filler = join(dir, 'filler');
      const stub = await startStubUpstream();
      const server = await startProcess({
        ACTIVITY_LOG_URL: `sqlite:${db}`,
        ACTIVITY_LOG_SPOOL: spool,
        ACTIVITY_LOG_DEAD_LETTER: join(dir, 'dead.jsonl'),
        SHUTDOWN_TIMEOUT_MS: '4000',
        UPSTREAM_BASE_URL: stub.url,
        UPSTREAM_TOKEN: TOKEN,
        SESSION_KEYS: SESSION_KEY,
        DEV_LOGIN: '1',
      });
      const rows = () => {
        if (!existsSync(db)) return [] as number[];
        const reader = openSqliteReadOnly(db);
        try {
          return (reader.prepare('SELECT entity_id FROM activity_log').all() as Array<{ entity_id: number | bigint }>).map((row) =>
            Number(row.entity_id),
          );
        } finally {
          reader.close();
        }
      };
      const changes = async (ids: readonly number[]) => {
        const cookie = cookieHeader(
          await fetch(`${server.url}/dev/login`, { method: 'POST', body: new URLSearchParams({ id: '7', name: 'Ana' }) }),
        );
        for (const id of ids)
          await expectAnswer(
            await fetch(`${server.url}${FIELD_PATH}`, { method: 'POST', body: form({ id: String(id) }), headers: { cookie } }),
            200,
            '{"ok":true}',
          );
      };
      const failedWrites = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('activity log write failed')).length;
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
      try {
        await changes([1]);
        expect(await until(() => rows().length === 1, 10_000)).toBe(true);

        // The disk fills: the changes are still answered; their entries wait in memory.
        fillDisk(filler);
        await changes(range(2, 101));
        expect(await until(() => failedWrites() >= 2, 10_000)).toBe(true);
        expect(server.output()).toContain('the activity log spool cannot be written');

        // Space returns: the writer, retrying at most a second apart, writes them all.
        rmSync(filler);
        expect(await until(() => rows().length === 101, 15_000)).toBe(true);

        // Full again, and the service stops before the store can take the next entries.
        fillDisk(filler);
        const failedBefore = failedWrites();
        await changes(range(201, 300));
        expect(await until(() => failedWrites() > failedBefore, 10_000)).toBe(true);
        const exited = once(server.child, 'exit');
        server.child.kill('SIGTERM');
        const [code] = (await exited) as [number | null];
        expect(code).toBe(0);
      } finally {
        await stub.close();
      }

      // Every entry of 201–300 is in exactly one place: the table, the spool (for the next start), or stderr as a dead-letter line.
      const onStderr = server
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{"refusedAt"'))
        .map((line) => JSON.parse(line) as { code: string; entry: { entityId: string; requestId: string | null } });
      const stored = rows().filter((id) => id >= 201);
      rmSync(filler);
      const left = openSpool(spool);
      const inSpool = left.adopted.map(({ entry }) => Number(entry.entityId)).filter((id) => id >= 201);
      left.close();
      const places = [...stored, ...inSpool, ...onStderr.map((line) => Number(line.entry.entityId))];
      expect(places.sort((a, b) => a - b)).toEqual(range(201, 300));
      expect(onStderr.length).toBeGreaterThan(0);
      expect(onStderr.every((line) => line.code === 'UNWRITTEN_AT_CLOSE' && line.entry.requestId !== null)).toBe(true);
      expect(server.output()).not.toMatch(/"lost":[1-9]/);

      // `replay-dead-letter --from-log` takes every line the server wrote to stderr as it wrote it, and only those.
      const captured = mkdtempSync(join(tmpdir(), 'full-disk-stderr-'));
      try {
        const file = join(captured, 'stderr.log');
        writeFileSync(file, server.stderr());
        const replayed = await replayCapturedLog(file, inMemoryActivityLogStore());
        expect(replayed).toMatchObject({ written: onStderr.length, failedChecks: 0, unreadable: 0, oversized: 0 });
        expect(replayed.skipped).toBe(
          server
            .stderr()
            .split('\n')
            .filter((line) => line !== '').length - onStderr.length,
        );
      } finally {
        rmSync(captured, { recursive: true, force: true });
      }
    });
  },
);
