import { appendFileSync, closeSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ActivityEntry } from '@cotizaciones/core';
import { openSpool, type ActivitySpool } from '../src/activity-log/activity-spool.js';
import { entryLine } from '../src/activity-log/spool-segment.js';
import { FORMAT_LINE } from '../src/activity-log/spool-format.js';
import type * as flock from '../src/fs/flock.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

/** What runs just before the next flock is taken: another process's step, interleaved there. */
const beforeNextLock = vi.hoisted(() => ({ run: undefined as (() => void) | undefined }));
vi.mock('../src/fs/flock.js', async (importOriginal) => {
  const actual = await importOriginal<typeof flock>();
  return {
    ...actual,
    tryLock: (fd: number, mode: 'shared' | 'exclusive') => {
      const run = beforeNextLock.run;
      beforeNextLock.run = undefined;
      run?.();
      return actual.tryLock(fd, mode);
    },
  };
});

const temporaryDir = temporaryDirs();
const entries = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => sampleEntry({ entityId: BigInt(from + i), requestId: `req-${from + i}` }));
const ids = (list: ReadonlyArray<{ entry: ActivityEntry }>) => list.map(({ entry }) => entry.entityId);
const segments = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.spool'));

/** The descriptor this process holds `path` open with. */
function segmentDescriptor(path: string): number {
  const fd = readdirSync('/proc/self/fd').find((name) => {
    try {
      return readlinkSync(`/proc/self/fd/${name}`) === path;
    } catch {
      return false;
    }
  });
  if (fd === undefined) throw new Error(`${path} is not open`);
  return Number(fd);
}

/** Appends each entry, failing the test if the spool did not take it. */
function appendAll(spool: ReturnType<typeof openSpool>, list: readonly ActivityEntry[]) {
  return list.map((entry) => {
    const appended = spool.append(entry);
    if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
    return appended.ticket;
  });
}

describe('activity spool', () => {
  it('a done segment whose file is already gone (the folder emptied by hand) is let go, and the spool takes the next entries', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    // Every append rotates: the previous segment, all acknowledged, is removed then.
    const spool = openSpool(dir, { segmentBytes: 1 });
    const [first] = entries(2);
    const appended = spool.append(first!);
    if (!appended.ok) throw new Error('not spooled');
    await appended.written;
    spool.acknowledge([appended.ticket]);
    for (const name of segments(dir)) rmSync(join(dir, name));
    const next = spool.append(entries(1, 2)[0]!);
    expect(next.ok).toBe(true);
    if (next.ok) expect(await next.written).toEqual({ kept: true, entries: 1 });
    expect(spool.close()).toBe(1);
  });

  it('writes the lines appended in one task together before the loop runs another callback, and settles their one promise then', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const spool = openSpool(dir);
    // Queued before the appends: the rest of the turn, which the answers must not wait for (decision 047).
    let restOfTurn = false;
    setImmediate(() => (restOfTurn = true));
    const list = entries(3);
    const written = list.map((entry) => {
      const appended = spool.append(entry);
      if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
      return appended.written;
    });
    const [name] = segments(dir);
    expect(readFileSync(join(dir, name!), 'utf8')).toBe(FORMAT_LINE);
    expect(new Set(written).size).toBe(1);
    expect(await written[0]).toEqual({ kept: true, entries: 3 });
    expect(restOfTurn).toBe(false);
    expect(readFileSync(join(dir, name!), 'utf8')).toBe(FORMAT_LINE + list.map(entryLine).join(''));

    const next = spool.append(entries(1, 4)[0]!);
    expect(next.ok && next.written).not.toBe(written[0]);
    spool.close();
  });

  it("after a turn of four entries or more, the next turn's lines wait for its end together; after a quieter one, they leave with their task again", async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const spool = openSpool(dir);
    const append = (entry: ActivityEntry) => {
      const appended = spool.append(entry);
      if (!appended.ok) throw new Error(`not spooled: ${appended.reason}`);
      return appended.written;
    };
    const content = () => readFileSync(join(dir, segments(dir)[0]!), 'utf8');
    const busy = entries(4).map(append);
    expect(await busy[0]).toEqual({ kept: true, entries: 4 });
    await new Promise((resolve) => setImmediate(resolve));

    let restOfTurn = false;
    setImmediate(() => (restOfTurn = true));
    const [fifth, sixth] = entries(2, 5);
    const first = append(fifth!);
    await Promise.resolve();
    expect(content()).not.toContain(entryLine(fifth!));
    // Appended by a later promise job of the same turn: the same write.
    const second = append(sixth!);
    expect(second).toBe(first);
    expect(await first).toEqual({ kept: true, entries: 2 });
    expect(restOfTurn).toBe(true);

    let restOfNextTurn = false;
    setImmediate(() => (restOfNextTurn = true));
    expect(await append(entries(1, 7)[0]!)).toEqual({ kept: true, entries: 1 });
    expect(restOfNextTurn).toBe(false);
    spool.close();
  });

  it('a turn whose write the disk refuses leaves none of its lines, settles as not kept, and marks its tickets lost', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const spool = openSpool(dir, { syncIntervalMs: 0 });
    const kept = appendAll(spool, entries(1));
    const second = spool.append(entries(1, 2)[0]!);
    if (second.ok) await second.written;
    const [name] = segments(dir);
    const before = readFileSync(join(dir, name!), 'utf8');
    // The disk refuses the next write: the segment's descriptor is taken away (EBADF), as EIO would.
    closeSync(segmentDescriptor(join(dir, name!)));
    const refused = spool.append(entries(1, 3)[0]!);
    if (!refused.ok) throw new Error('the bound or the segment refused it, not the write');
    const result = await refused.written;
    expect(result).toMatchObject({ kept: false, entries: 1 });
    expect(!result.kept && result.error).toMatchObject({ code: 'EBADF' });
    expect(refused.ticket.lost).toBe(true);
    expect(kept[0]!.lost).toBe(false);
    expect(readFileSync(join(dir, name!), 'utf8')).toBe(before);
    // Not closed: its descriptor is gone already.
  });

  it('an entry acknowledged in the turn it was appended is done once its line is written', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const spool = openSpool(dir);
    const appended = spool.append(entries(1)[0]!);
    if (!appended.ok) throw new Error('not spooled');
    spool.acknowledge([appended.ticket]);
    await appended.written;
    expect(spool.close()).toBe(0);
    expect(segments(dir)).toEqual([]);
  });

  it('removes its segment at close once every entry is acknowledged', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const spool = openSpool(dir);
    spool.acknowledge(appendAll(spool, entries(3)));
    expect(spool.close()).toBe(0);
    expect(segments(dir)).toEqual([]);
  });

  it('keeps what is not acknowledged for the next process, which takes over only that, oldest first', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const first = openSpool(dir);
    const tickets = appendAll(first, entries(5));
    // Acknowledged out of order (an entry set aside while those before it wait for the store).
    first.acknowledge([tickets[0]!, tickets[1]!, tickets[3]!]);
    expect(first.close()).toBe(2);

    const second = openSpool(dir);
    expect(ids(second.adopted)).toEqual([3n, 5n]);
    second.acknowledge(second.adopted.map((adopted) => adopted.ticket));
    expect(second.close()).toBe(0);
    expect(segments(dir)).toEqual([]);
  });

  it('never takes over the segment of a process that still holds it', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const live = openSpool(dir);
    appendAll(live, entries(2));
    const other = openSpool(dir);
    expect(other.adopted).toEqual([]);
    appendAll(other, entries(1, 3));
    expect(segments(dir)).toHaveLength(2);
    other.close();
    // Released by the other process: now it can be taken over (live's still cannot).
    const third = openSpool(dir);
    expect(ids(third.adopted)).toEqual([3n]);
    third.close();
    live.close();
  });

  it('a process starting while another creates a segment (created, not yet locked) never leaves it writing to a removed file', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const writer = openSpool(dir, { syncIntervalMs: 0 });
    let starter: ActivitySpool | undefined;
    // The starting process finds the new, empty segment unlocked, takes it over and removes it.
    beforeNextLock.run = () => {
      starter = openSpool(dir);
    };
    const appended = writer.append(entries(1)[0]!);
    expect(starter).toBeDefined();
    starter?.close();
    if (appended.ok) await appended.written;
    const left = writer.close();
    const next = openSpool(dir);
    // Either the entry was not spooled (and the log knows it), or it is in a segment the next process finds.
    if (appended.ok) {
      expect(left).toBe(1);
      expect(ids(next.adopted)).toEqual([1n]);
    } else expect(appended.reason).toBe('failed');
    next.close();
  });

  it('a torn last line (a write cut short by a crash) is skipped, not fatal, and cut off before anything is appended', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const first = openSpool(dir);
    appendAll(first, entries(2));
    first.close();
    const [name] = segments(dir);
    const path = join(dir, name!);
    appendFileSync(path, entryLine(entries(1, 3)[0]!).slice(0, 40));

    const second = openSpool(dir);
    expect(ids(second.adopted)).toEqual([1n, 2n]);
    expect(second.unreadable).toBe(1);
    second.acknowledge([second.adopted[0]!.ticket]);
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .map((line) => line.slice(0, 7)),
    ).toEqual(['{"spool', '{"e":{"', '{"e":{"', '{"done"', '']);
    second.close();
    const third = openSpool(dir);
    expect(ids(third.adopted)).toEqual([2n]);
    expect(third.unreadable).toBe(0);
    third.close();
  });

  it('an unreadable entry line in the middle moves no acknowledgement onto another entry; it counts as done, so its segment still ends', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const first = openSpool(dir);
    const tickets = appendAll(first, entries(4));
    first.acknowledge([tickets[2]!]);
    first.close();
    const [name] = segments(dir);
    const path = join(dir, name!);
    // The first entry's line becomes one no reader can take (a hand edit, or a later release's record).
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, [lines[0], '{"e":{"unknown":true}}', ...lines.slice(2)].join('\n'));

    const second = openSpool(dir);
    expect(ids(second.adopted)).toEqual([2n, 4n]);
    expect(second.unreadable).toBe(1);
    second.acknowledge(second.adopted.map(({ ticket }) => ticket));
    second.close();
    expect(segments(dir)).toEqual([]);
  });

  it('an acknowledgement line damaged at its start is skipped: the entries it named are forwarded again (the store is asked first), no other is skipped', async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const first = openSpool(dir);
    /** Appends the entries and waits until their turn's line are written. */
    const appendWritten = async (list: readonly ActivityEntry[]) => {
      const tickets = appendAll(first, list);
      await new Promise((resolve) => setImmediate(resolve));
      return tickets;
    };
    // The file: its format, e1, e2, {"done":["req-1"]}, e3, e4, {"done":["req-4"]}.
    const [one] = await appendWritten(entries(2));
    first.acknowledge([one!]);
    const [, four] = await appendWritten(entries(2, 3));
    first.acknowledge([four!]);
    first.close();
    const [name] = segments(dir);
    const path = join(dir, name!);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.map((line) => line.slice(0, 7))).toEqual([
      '{"spool',
      '{"e":{"',
      '{"e":{"',
      '{"done"',
      '{"e":{"',
      '{"e":{"',
      '{"done"',
      '',
    ]);
    lines[3] = `\u0000${lines[3]!.slice(1)}`;
    writeFileSync(path, lines.join('\n'));

    const second = openSpool(dir);
    expect(ids(second.adopted)).toEqual([1n, 2n, 3n]);
    expect(second.unreadable).toBe(1);
    second.close();
  });

  it('past its bound takes no more entries, and takes them again once acknowledged ones leave', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const line = Buffer.byteLength(entryLine(entries(1)[0]!));
    const spool = openSpool(dir, { maxBytes: (FORMAT_LINE.length + line) * 3 + 10, segmentBytes: line });
    const tickets = appendAll(spool, entries(3));
    expect(spool.append(entries(1, 4)[0]!)).toEqual({ ok: false, reason: 'full' });
    spool.acknowledge(tickets.slice(0, 2));
    expect(spool.append(entries(1, 5)[0]!).ok).toBe(true);
    spool.close();
  });

  it("a bound below one segment's size: once every entry is acknowledged, entries are taken again", async () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const line = Buffer.byteLength(entryLine(entries(1)[0]!));
    // The default segment size (8 MiB) is far above this bound: the segment being written to never fills.
    const spool = openSpool(dir, { maxBytes: FORMAT_LINE.length + line * 3 + 10, syncIntervalMs: 0 });
    const tickets = appendAll(spool, entries(3));
    const last = spool.append(entries(1, 4)[0]!);
    expect(last).toEqual({ ok: false, reason: 'full' });
    await new Promise((resolve) => setImmediate(resolve));
    spool.acknowledge(tickets);
    const next = spool.append(entries(1, 5)[0]!);
    expect(next.ok).toBe(true);
    if (next.ok) await next.written;
    expect(spool.close()).toBe(1);
    const after = openSpool(dir);
    expect(ids(after.adopted)).toEqual([5n]);
    after.close();
  });

  it('rotates segments at their size and removes each rotated one once its entries are acknowledged', () => {
    const dir = join(temporaryDir('spool-'), 'spool');
    const line = Buffer.byteLength(entryLine(entries(1)[0]!));
    const spool = openSpool(dir, { segmentBytes: line * 2 });
    const tickets = appendAll(spool, entries(6));
    expect(segments(dir)).toHaveLength(3);
    spool.acknowledge(tickets.slice(0, 4));
    expect(segments(dir)).toHaveLength(1);
    expect(spool.close()).toBe(2);
  });
});
