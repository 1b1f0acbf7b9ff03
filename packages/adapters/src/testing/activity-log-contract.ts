import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActivityEntry, ActivityLog } from '@cotizaciones/core';
import { toStoredActivity, type StoredActivity } from '../activity-log/activity-log-store.js';
import { forClaim, required, type ActivityLogClaims } from './claims.js';

export interface ActivityLogHarness {
  readonly log: ActivityLog;
  /** What the store holds, oldest first. */
  stored(): Promise<StoredActivity[]>;
  close(): Promise<void>;
  /**
   * Closes this log without discarding what it stored and opens the adapter again over the same
   * storage (same file, same table). Needed by the `durable` claim.
   */
  reopen?(): Promise<ActivityLogHarness>;
}

export function sampleEntry(overrides: Partial<ActivityEntry> = {}): ActivityEntry {
  return {
    createdAt: new Date('2026-03-04T05:06:07.089Z'),
    module: 'Cotizaciones',
    eventKey: 'cotizaciones.update',
    description: 'Actualizó la cotización #12',
    entityType: 'cotizacion',
    entityId: 12n,
    details: { field: 'estado' },
    userId: '7',
    requestId: 'req-1',
    clientIp: '127.0.0.1',
    userAgent: 'vitest',
    ...overrides,
  };
}

/**
 * The ActivityLog port's contract, run against every adapter of it. `claims.durable`: what was
 * flushed is still there after the log is closed and opened again.
 */
export function testActivityLog(name: string, createHarness: () => Promise<ActivityLogHarness>, claims: ActivityLogClaims = {}): void {
  describe(`ActivityLog contract: ${name}`, () => {
    let harness: ActivityLogHarness;
    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(() => harness.close());

    it('stores every recorded entry, in order, once flushed', async () => {
      const entries = [
        sampleEntry(),
        sampleEntry({
          eventKey: 'cotizaciones.item_delete',
          description: 'Eliminó ítem (detalle #9223372036854775807)',
          entityType: 'cotizacion_item',
          entityId: 9223372036854775807n,
          details: null,
          requestId: undefined,
          clientIp: undefined,
          userAgent: undefined,
        }),
        sampleEntry({ details: { field: 'descripción "ñ" \\ ✓' }, userId: 'ana@example.com' }),
      ];
      for (const entry of entries) void harness.log.record(entry);
      await harness.log.flush();
      expect(await harness.stored()).toEqual(entries.map(toStoredActivity));
    });

    it('stores a batch of many entries whole and in order', async () => {
      const entries = Array.from({ length: 70 }, (_, i) => sampleEntry({ entityId: BigInt(i + 1), requestId: `req-${i + 1}` }));
      for (const entry of entries) void harness.log.record(entry);
      await harness.log.flush();
      expect(await harness.stored()).toEqual(entries.map(toStoredActivity));
    });

    it('keeps created_at in UTC to the millisecond', async () => {
      void harness.log.record(sampleEntry({ createdAt: new Date('2026-12-31T23:59:59.999Z') }));
      await harness.log.flush();
      const [row] = await harness.stored();
      expect(row?.created_at).toBe('2026-12-31T23:59:59.999Z');
    });

    it('stores details as JSON text, or NULL', async () => {
      void harness.log.record(sampleEntry({ details: { field: 'benef_emp' } }));
      void harness.log.record(sampleEntry({ details: null }));
      await harness.log.flush();
      const rows = await harness.stored();
      expect(rows.map((row) => row.details)).toEqual(['{"field":"benef_emp"}', null]);
    });

    it('flush resolves with nothing pending, and an entry recorded after the log went idle is written too', async () => {
      await harness.log.flush();
      void harness.log.record(sampleEntry({ entityId: 1n }));
      await harness.log.flush();
      await harness.log.flush();
      void harness.log.record(sampleEntry({ entityId: 2n }));
      await harness.log.flush();
      expect((await harness.stored()).map((row) => row.entity_id)).toEqual(['1', '2']);
    });

    it('writes a burst of entries without losing any', async () => {
      for (let i = 1; i <= 1200; i += 1) void harness.log.record(sampleEntry({ entityId: BigInt(i) }));
      await harness.log.flush();
      const rows = await harness.stored();
      expect(rows).toHaveLength(1200);
      expect(rows.map((row) => row.entity_id)).toEqual(Array.from({ length: 1200 }, (_, i) => String(i + 1)));
    });

    forClaim('durable', claims.durable === true, () => {
      it('keeps what was flushed across a close and a reopen, and appends after it', async () => {
        void harness.log.record(sampleEntry({ entityId: 1n }));
        void harness.log.record(sampleEntry({ entityId: 2n, details: null }));
        await harness.log.flush();
        harness = await required(harness, 'reopen', 'durable')();
        expect((await harness.stored()).map((row) => [row.entity_id, row.details])).toEqual([
          ['1', '{"field":"estado"}'],
          ['2', null],
        ]);
        void harness.log.record(sampleEntry({ entityId: 3n }));
        await harness.log.flush();
        expect((await harness.stored()).map((row) => row.entity_id)).toEqual(['1', '2', '3']);
      });
    });
  });
}
