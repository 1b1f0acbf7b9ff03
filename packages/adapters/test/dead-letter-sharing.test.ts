import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { deadLetterFile, inMemoryActivityLogStore, replayDeadLetterFile } from '../src/index.js';
import { sampleEntry } from '../src/testing/index.js';
import { temporaryDirs } from '../src/testing/temporary-dir.js';

const temporaryDir = temporaryDirs();

const ENTRIES = 600;
const WINDOW = 100;
const refusal = { code: '22001', reason: 'value too long' };

// The service's appender and the replay command share one file. In one process their flocks still
// conflict (two open file descriptions), so this races them as two processes would race.
describe('replaying the dead-letter file while the service appends to it', () => {
  it(`${ENTRIES} entries appended during repeated replays: each ends in the store exactly once, none left in the file, none lost`, async () => {
    const file = join(temporaryDir('dead-letter-race-'), 'dead.jsonl');
    const inner = inMemoryActivityLogStore();
    // A store that answers on a later turn, as a real one does: the appends go on meanwhile.
    const store = {
      ...inner,
      async write(entries: Parameters<typeof inner.write>[0]) {
        await turn();
        await inner.write(entries);
      },
    };
    const service = deadLetterFile(file);
    let appending = true;
    let replays = 0;
    const appends = (async () => {
      for (let id = 1; id <= ENTRIES; id += 1) {
        expect(await service.append(sampleEntry({ entityId: BigInt(id), requestId: `race-${id}` }), refusal)).toBe(true);
        if (id % 3 === 0) await turn();
        // A stream of shared locks can keep the replay's exclusive one waiting as long as it lasts:
        // every WINDOW entries the appends wait for one more replay to end, so replays run among them.
        if (id % WINDOW === 0) for (const seen = replays; replays === seen;) await turn();
      }
      await service.close();
      appending = false;
    })();
    let writtenDuringAppends = 0;
    while (appending) {
      writtenDuringAppends += (await replayDeadLetterFile(file, store)).written;
      replays += 1;
      await turn();
    }
    await appends;
    await replayDeadLetterFile(file, store);

    const rows = await inner.recent(10 * ENTRIES);
    const ids = rows.map((row) => row.request_id);
    expect(writtenDuringAppends).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ENTRIES);
    expect(rows).toHaveLength(ENTRIES);
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
  });
});
