import type { OutageOptions } from './outage.js';

type OutageState = Parameters<OutageOptions['onOutage']>[0];

/** What stderr says when the upstream stops answering, and when it answers again. */
export function outageNotice(state: OutageState, maxWaitMs: number): string {
  return state.down
    ? `\nthe upstream cannot be reached (${state.message}): nothing was sent; waiting up to ${maxWaitMs / 1000} s, no new line starts meanwhile\n`
    : `\nthe upstream answers again after ${(state.waitedMs / 1000).toFixed(1)} s: going on\n`;
}

/** What stderr says when the run stops because the upstream stayed unreachable past `--max-wait`. */
export function giveUpNotice(maxWaitMs: number, resume: string): string {
  return `\nthe upstream could not be reached for ${maxWaitMs / 1000} s: stopping (the lines waiting are not sent)\n${resume}\n`;
}
