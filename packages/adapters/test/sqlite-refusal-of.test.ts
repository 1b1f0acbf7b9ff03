import { describe, expect, it } from 'vitest';
import { openSqlActivityLogStore } from '../src/sql.js';
import { sampleEntry } from '../src/testing/index.js';

describe('SQLite', () => {
  it('enforces no declared length or charset: refusalOf refuses nothing', async () => {
    const store = await openSqlActivityLogStore('sqlite::memory:');
    try {
      expect(typeof store.refusalOf).toBe('function');
      for (const entry of [
        sampleEntry({ userId: 'u'.repeat(20) }),
        sampleEntry({ entityType: 'e'.repeat(1000), requestId: 'r'.repeat(500), details: { field: '😀\u0000' }, description: 'a\u0000' }),
      ])
        expect(store.refusalOf?.(entry)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
