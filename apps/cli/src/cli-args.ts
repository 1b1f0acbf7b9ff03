import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

export const USAGE = `usage: cotizaciones apply <file.csv|file.ndjson> --as <user id> [options]
       cotizaciones replay-dead-letter [file] | --from-log <captured log>
       cotizaciones --help | --version

  --as <user id>       the user the changes are made and audited as (required)
  --dry-run            print the request each line would send; nothing is sent, the results go to <file>.dry-run.csv
  --demo               send to the built-in demo upstream (UPSTREAM_BASE_URL unset): to try the tool, nothing journaled
  --concurrency <n>    lines in flight at once (default 4)
  --rate <n>           at most n lines started per second (default: no limit)
  --results <file>     one row per line: line,outcome,message (default: <file>.results.csv)
  --journal <file>     lines already applied, known by content and occurrence (not line number):
                       a rerun skips them wherever they are now (default: <file>.journal)
  --max-wait <s>       how long to wait, with backoff, while the upstream cannot be reached (nothing
                       sent) before stopping; the run can then be resumed (default 60)

replay-dead-letter writes the entries of the activity log's dead-letter file
(default: ACTIVITY_LOG_DEAD_LETTER) to the activity log, keeping in the file
only those not written; safe while the server runs. With --from-log it writes
the entries a captured server log holds (those the server could store nowhere),
leaving the log as it is. Either way it skips entries the activity log already
holds, and writes none that fails the server's own checks.

The upstream, its token and the activity log come from the same environment
variables as the server (UPSTREAM_BASE_URL, UPSTREAM_TOKEN, ACTIVITY_LOG_URL, …).
Exit code: 0 every line (every entry) succeeded; 1 some did not, or the run
was interrupted (run the same command again to go on), even if audit entries
were also set aside; 2 a usage or configuration error; 3 every line was done
but some audit entries could not be written: they are in the dead-letter file
the summary names (replay-dead-letter writes them once the activity log is back).`;

export interface ApplyArgs {
  readonly command: 'apply';
  readonly file: string;
  readonly as: string;
  readonly dryRun: boolean;
  readonly demo: boolean;
  readonly concurrency: number;
  readonly rate: number | undefined;
  readonly results: string;
  readonly journal: string;
  readonly maxWaitMs: number;
}

export interface ReplayArgs {
  readonly command: 'replay-dead-letter';
  /** Undefined: ACTIVITY_LOG_DEAD_LETTER. */
  readonly file: string | undefined;
  /** A captured server log to take the entries from instead. */
  readonly fromLog?: string | undefined;
}

export type CliArgs = ApplyArgs | ReplayArgs | { readonly command: 'help' | 'version' };

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        as: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        demo: { type: 'boolean', default: false },
        concurrency: { type: 'string', default: '4' },
        rate: { type: 'string' },
        results: { type: 'string' },
        journal: { type: 'string' },
        'max-wait': { type: 'string', default: '60' },
        'from-log': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };
  const [command, file, ...rest] = positionals;
  if (command !== 'apply' && command !== 'replay-dead-letter') {
    throw new UsageError(command === undefined ? 'no command given' : `unknown command ${JSON.stringify(command)}`);
  }
  if (rest.length) throw new UsageError(`one file at a time (also got ${rest.join(' ')})`);
  if (command === 'replay-dead-letter') {
    const given = Object.keys(values).filter(
      (name) => name !== 'from-log' && argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`)),
    );
    if (given.length) throw new UsageError(`replay-dead-letter takes no option but --from-log (got --${given[0]})`);
    const fromLog = values['from-log'];
    if (fromLog !== undefined && file !== undefined)
      throw new UsageError('replay-dead-letter takes a dead-letter file or --from-log <captured log>, not both');
    return { command, file, fromLog };
  }
  if (values['from-log'] !== undefined) throw new UsageError("--from-log is replay-dead-letter's option");
  if (file === undefined) throw new UsageError('apply needs the file of changes');
  if (!values.as?.trim()) throw new UsageError('--as <user id> is required: every change is made and audited as that user');
  return {
    command,
    file,
    as: values.as.trim(),
    dryRun: values['dry-run'],
    demo: values.demo,
    concurrency: positive('--concurrency', values.concurrency, 1_000),
    rate: values.rate === undefined ? undefined : positive('--rate', values.rate, 100_000),
    results: values.results ?? (values['dry-run'] ? `${file}.dry-run.csv` : `${file}.results.csv`),
    journal: values.journal ?? `${file}.journal`,
    maxWaitMs: positive('--max-wait', values['max-wait'], 86_400) * 1000,
  };
}

function positive(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max)
    throw new UsageError(`${name} must be a whole number from 1 to ${max}, not ${JSON.stringify(text)}`);
  return value;
}
