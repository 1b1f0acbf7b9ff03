import { applySettings } from './apply-settings.js';
import type { ApplyArgs } from './cli-args.js';
import { fail } from './fail.js';
import { openRun } from './open-run.js';
import { inputRefusal } from './read-input.js';
import { reportRun } from './report-run.js';
import { runApply } from './run-apply.js';
import { resumeCommand } from './shell-quote.js';
import { onApplyStop } from './stop-signals.js';

/** `cotizaciones apply`: every line of the file through its operation's use case. */
export async function apply(args: ApplyArgs): Promise<number> {
  const settings = applySettings(args, process.env);
  if ('refused' in settings) return fail(2, settings.refused);
  const refusal = await inputRefusal(args.file);
  if (refusal !== undefined) return fail(2, [`cotizaciones: ${refusal}`]);
  const run = await openRun(args, settings.config, settings.target, resumeCommand(process.argv.slice(2)));
  if ('refused' in run) return fail(2, run.refused);
  const stop = new AbortController();
  onApplyStop(run, stop);
  return reportRun(run, await runApply(run, stop));
}
