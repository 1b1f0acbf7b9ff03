import { execFile } from 'node:child_process';
import { createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deadLetterLine } from '../src/activity-log/dead-letter-line.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();
const run = promisify(execFile);
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

// A small child replays the file into a store that keeps nothing (only the replay's own memory is
// measured) and prints its RSS before the replay and its peak: a replay that read the file, or its
// long line, whole would grow by at least that size.
const CHILD = `
import { replayDeadLetterFile } from ${JSON.stringify(BUILT)};
const store = { write: async () => {}, storedRequestIds: async () => new Set() };
const before = process.memoryUsage().rss;
const result = await replayDeadLetterFile(process.argv[1], store);
console.log(JSON.stringify({ result, before, peak: process.resourceUsage().maxRSS * 1024 }));
`;

const LINE_BYTES = 50 * 1024 * 1024;
const ENTRIES = 4000;

async function writeFile(file: string) {
  const out = createWriteStream(file);
  const write = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  const refusal = { code: '22001', reason: 'value too long' };
  for (let id = 1; id <= ENTRIES; id += 1) {
    await write(
      deadLetterLine(
        sampleEntry({ entityId: BigInt(id), requestId: `mem-${id}`, details: { field: 'x'.repeat(500) } }),
        refusal,
        new Date(),
      ),
    );
    if (id === ENTRIES / 2) {
      // A hand-edited line: 50 MB of one JSON string, no newline until its end.
      await write('{"refusedAt":"2026-01-01T00:00:00.000Z","code":"x","reason":"');
      const block = 'y'.repeat(1024 * 1024);
      for (let i = 0; i < LINE_BYTES / block.length; i += 1) await write(block);
      await write('"}\n');
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

describe('the dead-letter replay reads its file as a stream', () => {
  it('a file holding a 50 MB line and 4000 entries: the entries written, the line counted and dropped, memory far below the file size', async () => {
    const file = join(temporaryDir('replay-memory-'), 'dead.jsonl');
    await writeFile(file);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(LINE_BYTES);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD, file], { maxBuffer: 1024 * 1024 });
    const { result, before, peak } = JSON.parse(stdout) as { result: Record<string, number>; before: number; peak: number };
    expect(result).toMatchObject({ written: ENTRIES, oversized: 1, unreadable: 0, failedChecks: 0, notTried: 0 });
    console.log(
      `file ${(size / 2 ** 20).toFixed(1)} MiB; child RSS before ${(before / 2 ** 20).toFixed(1)} MiB, peak ${(peak / 2 ** 20).toFixed(1)} MiB`,
    );
    // Read whole, the 50 MB line alone would take its size (twice as a string); streamed, growth stays
    // under half the file on every Node version (their buffer pools and heap growth differ: 11–15 MB seen).
    expect(peak - before).toBeLessThan(size / 2);
  });
});
