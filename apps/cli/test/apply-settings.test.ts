import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryDirs } from '@cotizaciones/adapters/testing';
import { applySettings } from '../src/apply-settings.js';
import { parseCliArgs, USAGE, type ApplyArgs } from '../src/cli-args.js';

const dir = temporaryDirs()('cli-apply-settings-');
const input = join(dir, 'changes.csv');
writeFileSync(input, 'id,field,value\n');
const args = (...more: string[]) => parseCliArgs(['apply', input, '--as', '7', ...more]) as ApplyArgs;
const env = { UPSTREAM_BASE_URL: 'http://127.0.0.1:9/api', UPSTREAM_TOKEN: 'cli-secret-token' };

describe('what apply checks before it opens anything', () => {
  it('runs against the configured upstream', () => {
    expect(applySettings(args(), env)).toMatchObject({ target: expect.stringContaining('127.0.0.1:9') as string });
  });

  it('refuses an input that is not a file, and a results or journal file that is the input, with the usage', () => {
    expect(applySettings(parseCliArgs(['apply', join(dir, 'none.csv'), '--as', '7']) as ApplyArgs, env)).toEqual({
      refused: [`cotizaciones: no such file: ${join(dir, 'none.csv')}`, '', USAGE],
    });
    expect(applySettings(args('--results', input), env)).toEqual({
      refused: [`cotizaciones: --results ${input} is the input file`, '', USAGE],
    });
    expect(applySettings(args('--journal', input), env)).toEqual({
      refused: [`cotizaciones: --journal ${input} is the input file`, '', USAGE],
    });
  });

  it('refuses a configuration error, one line per problem, without its secret', () => {
    const refused = applySettings(args(), { ...env, UPSTREAM_BASE_URL: 'not a url' });
    expect(refused).toEqual({ refused: [expect.stringMatching(/^configuration error: UPSTREAM_BASE_URL/) as string] });
    expect(JSON.stringify(refused)).not.toContain('cli-secret-token');
  });

  it('refuses a token kept in the web session, which the command line has not', () => {
    expect(applySettings(args(), { UPSTREAM_BASE_URL: env.UPSTREAM_BASE_URL, UPSTREAM_TOKEN_SESSION_KEY: 'upstream_token' })).toEqual({
      refused: [
        'configuration error: UPSTREAM_TOKEN_SESSION_KEY: the command line has no web session; set UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL',
      ],
    });
  });

  it('refuses the built-in demo upstream unless asked for (--demo) or nothing is sent (--dry-run)', () => {
    expect(applySettings(args(), {})).toEqual({
      refused: [
        'cotizaciones: UPSTREAM_BASE_URL is unset: the changes would go to the built-in demo upstream. Set it, or pass --demo to try the tool.',
      ],
    });
    expect(applySettings(args('--demo'), {})).toMatchObject({ target: undefined });
    expect(applySettings(args('--dry-run'), {})).toMatchObject({ target: undefined });
  });
});
