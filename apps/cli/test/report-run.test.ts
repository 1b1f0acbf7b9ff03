import { describe, expect, it } from 'vitest';
import type { ActivityLogStats } from '@cotizaciones/adapters';
import { unwrittenAudit } from '../src/report-run.js';

describe("a run's audit entries not in the activity log", () => {
  it('are none without an activity log (a dry run)', () => {
    expect(unwrittenAudit(undefined)).toEqual({ setAside: 0, lost: 0 });
  });

  it('are those set aside (dead-lettered or left in the spool) and those lost', () => {
    const stats = {
      deadLettered: 2,
      spilled: 3,
      dropped: 5,
      deadLetterFailed: 7,
      deadLetterDropped: 11,
    } as Partial<ActivityLogStats> as ActivityLogStats;
    expect(unwrittenAudit(stats)).toEqual({ setAside: 5, lost: 23 });
  });
});
