import { describe, expect, it } from 'vitest';
import { resumeCommand, shellQuote } from '../src/shell-quote.js';

describe('the command that resumes a run', () => {
  it('keeps plain arguments as they are and quotes the rest for a POSIX shell', () => {
    expect(shellQuote('changes/2024-01.csv')).toBe('changes/2024-01.csv');
    expect(shellQuote('my changes.csv')).toBe("'my changes.csv'");
    expect(shellQuote("it's.csv")).toBe("'it'\\''s.csv'");
    expect(shellQuote('$HOME;rm')).toBe("'$HOME;rm'");
  });

  it('is the same command, each argument quoted', () => {
    expect(resumeCommand(['apply', 'a b.csv', '--as', '7'])).toBe("to resume, run: cotizaciones apply 'a b.csv' --as 7");
  });
});
