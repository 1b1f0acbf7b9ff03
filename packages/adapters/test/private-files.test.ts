import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSpool } from '../src/activity-log/activity-spool.js';
import { deadLetterFile } from '../src/activity-log/dead-letter-file.js';
import { openSqlActivityLogStore } from '../src/activity-log/sql-activity-log-store.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();
const modeOf = (path: string) => statSync(path).mode & 0o777;

// A container's usual umask: without a mode of their own, files would be 0644 and folders 0755.
let umask: number;
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
});

describe("the activity log's files are its owner's only, whatever the umask", () => {
  it('SQLite: the database and the -wal and -shm SQLite makes beside it are 0600 after a write', async () => {
    const file = join(temporaryDir('private-sqlite-'), 'activity.db');
    const store = await openSqlActivityLogStore(`sqlite:${file}`);
    try {
      await store.write([sampleEntry()]);
      // SQLite gives its side files the database file's mode: seen here, while the connection holds them.
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path), path).toBe(true);
        expect(modeOf(path).toString(8), path).toBe('600');
      }
      expect(await store.recent(1)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('the spool: its folder 0700, its segments 0600', async () => {
    const dir = join(temporaryDir('private-spool-'), 'spool');
    const spool = openSpool(dir);
    try {
      const appended = spool.append(sampleEntry());
      if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
      await appended.written;
      expect(modeOf(dir).toString(8)).toBe('700');
      const segments = readdirSync(dir);
      expect(segments).toHaveLength(1);
      expect(modeOf(join(dir, segments[0]!)).toString(8)).toBe('600');
    } finally {
      spool.close();
    }
  });

  it('the dead-letter file: 0600', async () => {
    const path = join(temporaryDir('private-dead-letter-'), 'dead.jsonl');
    const file = deadLetterFile(path);
    expect(await file.append(sampleEntry(), { code: 'X', reason: 'r' })).toBe(true);
    await file.close();
    expect(modeOf(path).toString(8)).toBe('600');
  });
});
