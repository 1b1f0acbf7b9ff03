import { existsSync, realpathSync, statSync } from 'node:fs';
import { ConfigError, loadRuntimeConfig, upstreamTarget, type RuntimeConfig } from '@cotizaciones/runtime';
import { USAGE, type ApplyArgs } from './cli-args.js';
import { UsageError } from './usage-error.js';

/** What `apply` runs with, or the lines that refuse to run it (exit code 2). */
export type ApplySettings =
  { readonly config: RuntimeConfig; readonly target: string | undefined } | { readonly refused: readonly string[] };

/** The input must be a file; what the tool writes must not be it. */
function checkPaths(args: ApplyArgs): void {
  if (!existsSync(args.file) || !statSync(args.file).isFile()) throw new UsageError(`no such file: ${args.file}`);
  const input = realpathSync(args.file);
  for (const [option, path] of [
    ['--results', args.results],
    ['--journal', args.journal],
  ] as const) {
    if (existsSync(path) && realpathSync(path) === input) throw new UsageError(`${option} ${path} is the input file`);
  }
}

/** The paths, the configuration and the upstream of a run, checked before anything is opened. */
export function applySettings(args: ApplyArgs, env: NodeJS.ProcessEnv): ApplySettings {
  let config;
  try {
    checkPaths(args);
    config = loadRuntimeConfig(env);
  } catch (error) {
    if (error instanceof UsageError) return { refused: [`cotizaciones: ${error.message}`, '', USAGE] };
    if (error instanceof ConfigError) return { refused: error.problems.map((line) => `configuration error: ${line}`) };
    throw error;
  }
  // A token kept in each user's web session does not exist here.
  if (config.tokenSource.kind === 'session') {
    return {
      refused: [
        'configuration error: UPSTREAM_TOKEN_SESSION_KEY: the command line has no web session; set UPSTREAM_TOKEN or UPSTREAM_TOKEN_URL',
      ],
    };
  }
  const target = upstreamTarget(config);
  if (target === undefined && !args.dryRun && !args.demo) {
    return {
      refused: [
        'cotizaciones: UPSTREAM_BASE_URL is unset: the changes would go to the built-in demo upstream. Set it, or pass --demo to try the tool.',
      ],
    };
  }
  return { config, target };
}
