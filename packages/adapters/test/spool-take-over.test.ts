import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type * as fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { openSpool } from '../src/activity-log/activity-spool.js';
import type { Refusal } from '../src/activity-log/dead-letter-line.js';
import { entryLine } from '../src/activity-log/spool-segment.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

/**
 * Paths whose open fails with EACCES, as a segment a root-run process left does for a service that
 * does not run as root (the tests run as root, which file modes do not stop).
 */
const refusedPaths = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  const openSync = ((path: string, ...rest: unknown[]) => {
    if (refusedPaths.has(String(path))) throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
    return (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
  }) as typeof actual.openSync;
  return { ...actual, default: { ...actual, openSync }, openSync };
});

const temporaryDir = temporaryDirs();
const entries = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(from + i), requestId: `req-${from + i}` }));
const ids = (list: ReadonlyArray<{ entry: ActivityEntry }>) => list.map(({ entry }) => entry.entityId);
const segmentName = (n: number) => `${String(n).padStart(15, '0')}-000000000000.spool`;

/** A spool folder holding one segment a killed process left, its entries not acknowledged. */
function spoolWith(list: readonly ActivityEntry[]): string {
  const dir = join(temporaryDir('spool-'), 'spool');
  mkdirSync(dir);
  writeFileSync(join(dir, segmentName(1)), `{"spool":2}\n${list.map(entryLine).join('')}`);
  return dir;
}

describe('the spool take-over', () => {
  it('skips and counts a directory, a link and an unreadable segment named *.spool, follows no link, and still takes over the segments it can read', () => {
    const dir = spoolWith(entries(2));
    mkdirSync(join(dir, segmentName(2)));
    const target = join(temporaryDir('target-'), 'precious.txt');
    writeFileSync(target, 'not a segment\n');
    symlinkSync(target, join(dir, segmentName(3)));
    const refused = join(dir, segmentName(4));
    writeFileSync(refused, entryLine(entries(1, 9)[0]!));
    refusedPaths.add(refused);
    try {
      const spool = openSpool(dir);
      expect(ids(spool.adopted)).toEqual([1n, 2n]);
      expect(spool.takeOver.skipped).toEqual({ directory: 1, symlink: 1, special: 0, unopenable: 1, unknownFormat: 0 });
      expect([...spool.takeOver.skippedNames].sort()).toEqual([segmentName(2), segmentName(3), segmentName(4)]);
      spool.acknowledge(spool.adopted.map(({ ticket }) => ticket));
      spool.close();
    } finally {
      refusedPaths.delete(refused);
    }
    expect(readFileSync(target, 'utf8')).toBe('not a segment\n');
    // Left as they were: a later start (or a person) may read them.
    expect(readdirSync(dir).sort()).toEqual([segmentName(2), segmentName(3), segmentName(4)]);
  });

  // A FIFO (which a plain open would wait on forever) is in the server's process test: making one takes `mkfifo`.
  it('skips and counts a socket named *.spool', async () => {
    const dir = spoolWith(entries(1));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, segmentName(2)), resolve));
    try {
      const spool = openSpool(dir);
      expect(ids(spool.adopted)).toEqual([1n]);
      expect(spool.takeOver.skipped).toMatchObject({ special: 1 });
      spool.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps a segment of a format a later release wrote, whole, and reports it', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    mkdirSync(dir);
    const later = `{"spool":3}\n{"entry":{"id":"req-1"}}\n{"acknowledged":["req-1"]}\n`;
    writeFileSync(join(dir, segmentName(1)), later);
    const spool = openSpool(dir);
    expect(spool.adopted).toEqual([]);
    expect(spool.takeOver.skipped).toMatchObject({ unknownFormat: 1 });
    expect(spool.takeOver.skippedNames).toEqual([segmentName(1)]);
    spool.close();
    expect(readFileSync(join(dir, segmentName(1)), 'utf8')).toBe(later);
  });

  it("a taken-over entry that fails the replay's checks is never handed back for the store: it is set aside with the reason, then acknowledged", async () => {
    const planted = sampleEntry({ entityId: 5n, requestId: 'req-5', clientIp: 'not-an-ip' });
    const dir = spoolWith([...entries(2), planted]);
    const setAside: Array<{ entry: ActivityEntry; refusal: Refusal }> = [];
    const spool = openSpool(dir, {
      setAside: (entry, refusal) => {
        setAside.push({ entry, refusal });
        return Promise.resolve();
      },
    });
    expect(ids(spool.adopted)).toEqual([1n, 2n]);
    expect(spool.takeOver.failedChecks).toBe(1);
    expect(setAside).toEqual([{ entry: planted, refusal: { code: 'FAILED_CHECKS', reason: 'client IP is not an IP address' } }]);
    await new Promise((resolve) => setImmediate(resolve));
    spool.close();
    const next = openSpool(dir);
    expect(ids(next.adopted)).toEqual([1n, 2n]);
    expect(next.takeOver.failedChecks).toBe(0);
    next.close();
  });

  it('takes over a segment of format 1 (the previous release: acknowledgements by place) and acknowledges it in that format', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    mkdirSync(dir);
    const path = join(dir, segmentName(1));
    writeFileSync(path, `${entries(4).map(entryLine).join('')}{"ack":1,"done":[2]}\n`);
    const spool = openSpool(dir);
    expect(ids(spool.adopted)).toEqual([2n, 4n]);
    spool.acknowledge([spool.adopted[0]!.ticket]);
    expect(readFileSync(path, 'utf8').split('\n').at(-2)).toBe('{"ack":3}');
    spool.close();
    const next = openSpool(dir);
    expect(ids(next.adopted)).toEqual([4n]);
    next.acknowledge(next.adopted.map(({ ticket }) => ticket));
    next.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
