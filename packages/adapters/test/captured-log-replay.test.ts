import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inMemoryActivityLogStore, replayCapturedLog } from '../src/index.js';
import { deadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

const none = { written: 0, alreadyStored: 0, stillRefused: 0, failedChecks: 0, unreadable: 0, oversized: 0, notTried: 0 };
const diskFull = { code: 'ENOSPC', reason: 'no space left on device' };
const entry = (id: number) => sampleEntry({ entityId: BigInt(id), requestId: `log-${id}` });
/** What the service writes to stderr for an entry it could store nowhere: one dead-letter line. */
const stderrLine = (id: number) => deadLetterLine(entry(id), diskFull, new Date('2026-03-04T05:06:08Z')).trimEnd();

describe('replay-dead-letter --from-log: the entries a captured server log holds', () => {
  it('finds the records behind any prefix, ignores pino lines, writes each entry once, and leaves the log as it was', async () => {
    const log = [
      '{"level":30,"time":1772600767000,"msg":"listening","port":8080}',
      stderrLine(1),
      `2026-03-04T05:06:08.123456789Z ${stderrLine(2)}`, // kubectl logs --timestamps, docker logs -t
      `Mar 04 05:06:08 host cotizaciones[812]: ${stderrLine(3)}`, // journalctl
      '{"level":50,"time":1772600768000,"msg":"activity log: entry set aside","err":{"message":"ENOSPC"}}',
      `{"level":40,"msg":"logged as an object","record":${stderrLine(9)}}`, // not the stderr line the service writes: counted unreadable, not written
      'plain text from npm',
      '',
    ].join('\n');
    const file = join(temporaryDir('captured-log-'), 'server.log');
    writeFileSync(file, log);
    const store = inMemoryActivityLogStore();
    await store.write([entry(2)]); // the spool forwarded it after all
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, written: 2, alreadyStored: 1, unreadable: 1 });
    expect((await store.recent(10)).map((row) => row.request_id).reverse()).toEqual(['log-2', 'log-1', 'log-3']);
    expect(readFileSync(file, 'utf8')).toBe(log);
    // Run again (after fixing what it reported): nothing written twice.
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, alreadyStored: 3, unreadable: 1 });
    expect(await store.recent(10)).toHaveLength(3);
  });

  it("applies the service's checks and the 64 KiB bound to what it finds", async () => {
    const forged = (overrides: Record<string, unknown>) => {
      const record = JSON.parse(stderrLine(5)) as { entry: Record<string, unknown> };
      return JSON.stringify({ ...record, entry: { ...record.entry, ...overrides } });
    };
    const huge = forged({ description: 'x'.repeat(200 * 1024), requestId: 'log-huge' });
    const file = join(temporaryDir('captured-log-'), 'server.log');
    writeFileSync(
      file,
      [
        forged({ clientIp: 'forged' }),
        forged({ requestId: 'r'.repeat(5000) }),
        forged({ entityId: '99999999999999999999' }),
        `ts ${huge}`,
        stderrLine(6),
        '',
      ].join('\n'),
    );
    const store = inMemoryActivityLogStore();
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, written: 1, failedChecks: 3, oversized: 1 });
    expect((await store.recent(10)).map((row) => row.request_id)).toEqual(['log-6']);
  });
});
