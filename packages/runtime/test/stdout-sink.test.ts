import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdoutSink } from '../src/stdout-sink.js';

describe('the server log sink', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sink-'));
    file = join(dir, 'out.log');
    fd = openSync(file, 'w');
  });
  afterEach(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const written = () => readFileSync(file, 'utf8');
  const turns = async (n: number) => {
    for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('a flush asked while a write is under way resolves when it ends, with nothing left to write', async () => {
    const sink = stdoutSink({ fd, minBytes: 16 });
    sink.write(`${'a'.repeat(40)}\n`); // a full buffer: its write starts now
    await sink.flush();
    expect(written()).toBe(`${'a'.repeat(40)}\n`);
  });

  it('writes a busy log in full buffers: what arrives during a write waits for the next full one, the timer or a flush', async () => {
    const sink = stdoutSink({ fd, minBytes: 64 });
    sink.write(`${'a'.repeat(80)}\n`);
    sink.write('short line\n'); // arrives while the first write is under way
    while (written().length < 81) await turns(1);
    await turns(20);
    expect(written()).toBe(`${'a'.repeat(80)}\n`);
    await sink.flush();
    expect(written()).toBe(`${'a'.repeat(80)}\nshort line\n`);
    expect(sink.droppedBytes()).toBe(0);
  });
});
