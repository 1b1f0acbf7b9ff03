#!/usr/bin/env node
import { onStopSignals, readActivityLogConfig, type ConfigProblems } from '@cotizaciones/runtime';
import { apply } from './apply-command.js';
import { parseCliArgs, USAGE, type CliArgs, type ReplayArgs } from './cli-args.js';
import { fail } from './fail.js';
import { replayDeadLetter } from './replay-dead-letter.js';
import { UsageError } from './usage-error.js';
import { VERSION } from './version.js';

/** `cotizaciones replay-dead-letter`: only the activity log's variables are read. */
async function replay(args: ReplayArgs): Promise<number> {
  const problems: ConfigProblems = new Map();
  const config = readActivityLogConfig(process.env, problems);
  if (problems.size > 0)
    return fail(
      2,
      [...problems.values()].map((line) => `configuration error: ${line}`),
    );
  const stop = new AbortController();
  onStopSignals(
    () => stop.abort(),
    () => process.exit(1),
  );
  return replayDeadLetter(config, args, stop.signal);
}

async function main(): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) return fail(2, [`cotizaciones: ${error.message}`, '', USAGE]);
    throw error;
  }
  switch (args.command) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write(`cotizaciones ${VERSION}\n`);
      return 0;
    case 'apply':
      return apply(args);
    case 'replay-dead-letter':
      return replay(args);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) =>
    error instanceof UsageError
      ? fail(2, [`cotizaciones: ${error.message}`])
      : fail(1, [`cotizaciones: ${error instanceof Error ? error.message : String(error)}`]),
);
