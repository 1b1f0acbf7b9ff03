import { describe, expect, it } from 'vitest';
import { giveUpNotice, outageNotice } from '../src/outage-notices.js';

describe('what stderr says of an upstream outage', () => {
  it('names the cause and the longest wait when it starts, the time waited when it ends', () => {
    expect(outageNotice({ down: true, message: 'connect ECONNREFUSED' }, 60_000)).toBe(
      '\nthe upstream cannot be reached (connect ECONNREFUSED): nothing was sent; waiting up to 60 s, no new line starts meanwhile\n',
    );
    expect(outageNotice({ down: false, waitedMs: 1_234 }, 60_000)).toBe('\nthe upstream answers again after 1.2 s: going on\n');
  });

  it('gives the command that resumes when the run gives up', () => {
    expect(giveUpNotice(1_500, 'to resume, run: cotizaciones apply f.csv --as 7')).toBe(
      '\nthe upstream could not be reached for 1.5 s: stopping (the lines waiting are not sent)\nto resume, run: cotizaciones apply f.csv --as 7\n',
    );
  });
});
