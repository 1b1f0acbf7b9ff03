import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inMemoryActivityLogStore, replayCapturedLog } from '../src/index.js';
import { deadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

const none = { written: 0, alreadyStored: 0, stillRefused: 0, failedChecks: 0, unreadable: 0, oversized: 0, notTried: 0, skipped: 0 };
const diskFull = { code: 'ENOSPC', reason: 'no space left on device' };
const entry = (id: number, userId = '7') => sampleEntry({ entityId: BigInt(id), requestId: `log-${id}`, userId });
/** What the service writes to stderr for an entry it could store nowhere: one dead-letter line. */
const stderrLine = (id: number, userId?: string) => deadLetterLine(entry(id, userId), diskFull, new Date('2026-03-04T05:06:08Z')).trimEnd();

describe('replay-dead-letter --from-log: the entries a captured server log holds', () => {
  it("finds the lines behind a keeper's prefix, skips and counts the others, writes each entry once, and leaves the log as it was", async () => {
    const log = [
      '{"level":30,"time":1772600767000,"msg":"listening","port":8080}',
      stderrLine(1),
      `2026-03-04T05:06:08.123456789Z ${stderrLine(2)}`, // kubectl logs --timestamps, docker logs -t
      `Mar 04 05:06:08 host cotizaciones[812]: ${stderrLine(3)}`, // journalctl
      '{"level":50,"time":1772600768000,"msg":"activity log: entry set aside","err":{"message":"ENOSPC"}}',
      `{"level":40,"msg":"logged as an object","record":${stderrLine(9)}}`, // not the stderr line the service writes
      'plain text from npm',
      '',
    ].join('\n');
    const file = join(temporaryDir('captured-log-'), 'server.log');
    writeFileSync(file, log);
    const store = inMemoryActivityLogStore();
    await store.write([entry(2)]); // the spool forwarded it after all
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, written: 2, alreadyStored: 1, skipped: 4 });
    expect((await store.recent(10)).map((row) => row.request_id).reverse()).toEqual(['log-2', 'log-1', 'log-3']);
    expect(readFileSync(file, 'utf8')).toBe(log);
    // Run again (after fixing what it reported): nothing written twice.
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, alreadyStored: 3, skipped: 4 });
    expect(await store.recent(10)).toHaveLength(3);
  });

  it('takes a line only when it is exactly one dead-letter line the service wrote: a record inside another line is skipped and counted', async () => {
    const record = stderrLine(66, '666');
    const parsed = JSON.parse(record) as Record<string, unknown>;
    const lines = [
      `worker[99] says: ${record}`, // the reviewer's line: another process printed a record into the same log
      `2026-03-04T05:06:08Z some-tool: ${record}`, // a keeper's prefix, then someone else's text
      `${stderrLine(67)} trailing`, // a whole line the service writes, with text after it
      `${stderrLine(68)}}`,
      `${stderrLine(69)} `,
      `${record}${stderrLine(70)}`, // two records on one line
      JSON.stringify(parsed, null, 1).replace(/\n/g, ''), // the same record, not as the service writes it (spaces)
      JSON.stringify({ code: parsed.code, refusedAt: parsed.refusedAt, reason: parsed.reason, entry: parsed.entry }), // another key order
      JSON.stringify({ ...parsed, extra: 1 }),
      JSON.stringify({ ...parsed, entry: { ...(parsed.entry as object), forged: true } }),
      record.replace('"userId":"666"', '"userId":"\\u0036\\u0036\\u0036"'), // an escape JSON.stringify does not make
      '',
    ];
    const file = join(temporaryDir('captured-log-'), 'server.log');
    writeFileSync(file, lines.join('\n'));
    const store = inMemoryActivityLogStore();
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, skipped: lines.length - 1 });
    expect(await store.recent(10)).toEqual([]);
  });

  it.each([
    ['no prefix (docker logs, kubectl logs)', ''],
    ['docker logs -t', '2026-03-04T05:06:08.123456789Z '],
    ['kubectl logs --timestamps', '2026-03-04T05:06:08.123456789+00:00 '],
    ['kubectl logs --prefix', '[pod/cotizaciones-7d9f8b6c5d-x2x9k/server] '],
    ['kubectl logs --prefix --timestamps', '[pod/cotizaciones-7d9f8b6c5d-x2x9k/server] 2026-03-04T05:06:08.123456789Z '],
    ['docker compose logs', 'cotizaciones-1  | '],
    ['docker compose logs -t', 'cotizaciones-1  | 2026-03-04T05:06:08.123456789Z '],
    ['journalctl', 'Mar 04 05:06:08 host cotizaciones[812]: '],
    ['journalctl (a one-digit day)', 'Mar  4 05:06:08 host cotizaciones[812]: '],
    ['journalctl -o short-precise', 'Mar 04 05:06:08.123456 host node[812]: '],
    ['journalctl -o short-iso', '2026-03-04T05:06:08+0000 host cotizaciones[812]: '],
    ['journalctl -o short-iso-precise', '2026-03-04T05:06:08.123456+00:00 host cotizaciones.service[812]: '],
  ])('takes a dead-letter line behind %s', async (_keeper, prefix) => {
    const file = join(temporaryDir('captured-log-'), 'server.log');
    writeFileSync(file, `${prefix}${stderrLine(4)}\n${prefix}not a record\n`);
    const store = inMemoryActivityLogStore();
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, written: 1, skipped: 1 });
    expect(await store.recent(10)).toMatchObject([{ request_id: 'log-4', entity_id: '4', user_id: '7' }]);
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
        `2026-03-04T05:06:08Z ${huge}`,
        `ts ${huge}`, // not a keeper's prefix
        stderrLine(6),
        '',
      ].join('\n'),
    );
    const store = inMemoryActivityLogStore();
    expect(await replayCapturedLog(file, store)).toEqual({ ...none, written: 1, failedChecks: 3, oversized: 1, skipped: 1 });
    expect((await store.recent(10)).map((row) => row.request_id)).toEqual(['log-6']);
  });
});
