import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRequestId } from '@cotizaciones/core';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { isMalformed } from '../src/change-line.js';
import { lineKey, lineRequestId } from '../src/line-identity.js';
import { readInput } from '../src/read-input.js';

const dir = temporaryDirs()('cli-identity-');

/** Each change line of a file: its number and its identity. */
async function keys(name: string, text: string): Promise<Array<[number, string]>> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const found: Array<[number, string]> = [];
  for await (const line of readInput(path)) if (!isMalformed(line)) found.push([line.line, lineKey(line)]);
  return found;
}

const csv = (...lines: string[]) => `operation,id,field,value\n${lines.map((line) => `${line}\n`).join('')}`;

describe("a line's identity: its content and its occurrence, not its position", () => {
  it('inserting, removing or moving lines leaves the other lines their keys; only new content gets a new one', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `quotation,${i + 1},estado,x`);
    const before = (await keys('before.csv', csv(...ten))).map(([, key]) => key);
    const inserted = await keys('inserted.csv', csv('quotation,99,estado,x', ...ten));
    expect(inserted.map(([line]) => line)).toEqual(Array.from({ length: 11 }, (_, i) => i + 2));
    expect(inserted.slice(1).map(([, key]) => key)).toEqual(before);
    expect(before).not.toContain(inserted[0]?.[1]);
    const shuffled = await keys('moved.csv', csv(...ten.slice(5), ...ten.slice(0, 3)));
    expect(shuffled.map(([, key]) => key)).toEqual([...before.slice(5), ...before.slice(0, 3)]);
  });

  it('identical lines are told apart by occurrence, counting from 1 in file order; an edited line gets another hash', async () => {
    const found = await keys(
      'twins.csv',
      csv('quotation,1,estado,x', 'quotation,2,estado,x', 'quotation,1,estado,x', 'quotation,1,estado,y'),
    );
    const [first, , second, edited] = found.map(([, key]) => key.split(':'));
    expect(first?.[0]).toBe(second?.[0]);
    expect([first?.[1], second?.[1]]).toEqual(['1', '2']);
    expect(edited?.[0]).not.toBe(first?.[0]);
    expect(edited?.[1]).toBe('1');
  });

  it('the content is what the line asks for: the same in CSV or NDJSON, with its columns in any order, with CRLF or LF endings', async () => {
    const [[, plain] = [0, '']] = await keys('plain.csv', csv('quotation,7,estado,x'));
    const [[, reordered] = [0, '']] = await keys('reordered.csv', 'value,operation,field,id\r\nx,quotation,estado,7\r\n');
    const [[, ndjson] = [0, '']] = await keys('line.ndjson', '{"id":7,"operation":"quotation","value":"x","field":"estado"}\n');
    expect(reordered).toBe(plain);
    expect(ndjson).toBe(plain);
  });

  it('the idempotency key and the request id: <run id>:<content hash>:<occurrence>, within the activity log request id bound', () => {
    const id = lineRequestId('cli-20261123T150901123Z-a1b2c3', { hash: 'f'.repeat(32), occurrence: 1_000_000 });
    expect(id).toBe(`cli-20261123T150901123Z-a1b2c3:${'f'.repeat(32)}:1000000`);
    // The service's own rule: a replay of its audit entry checks the same.
    expect(isRequestId(id)).toBe(true);
  });
});
