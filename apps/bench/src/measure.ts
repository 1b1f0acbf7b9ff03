import type { LoadOptions, LoadResult } from './load-options.js';
import { runLoad } from './load.js';
import { cpuMs } from './processes.js';
import type { RunningTarget } from './targets.js';

export interface RoundResult extends LoadResult {
  readonly cpuMsPer1000: number;
  readonly upstreamCalls: number;
  readonly rowsWritten: number;
  /** What the correctness checks found; empty when the round was clean. */
  readonly problems: string[];
}

export async function upstreamCalls(stubUrl: string): Promise<number> {
  return Number(await (await fetch(`${stubUrl}/__calls`)).text());
}

/**
 * One measured run against a target, checked while it measures: no errors or
 * non-2xx, every body {"ok":true}, one upstream call per request, and as many
 * activity-log rows as successful upstream calls once the log has drained.
 */
export async function measureRound(
  target: RunningTarget,
  stubUrl: string,
  load: Omit<LoadOptions, 'url' | 'cookies'>,
): Promise<RoundResult> {
  const cookies = await target.cookies();
  // Start from a quiet state: what an earlier run left in flight has reached the upstream and the log.
  let callsBefore = await upstreamCalls(stubUrl);
  let rowsBefore = await target.rows();
  for (let i = 0; i < 50; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [calls, rows] = [await upstreamCalls(stubUrl), await target.rows()];
    if (calls === callsBefore && rows === rowsBefore) break;
    [callsBefore, rowsBefore] = [calls, rows];
  }
  const cpuBefore = cpuMs(target.process.pid);
  const result = await runLoad({ url: target.process.url, cookies, ...load });
  const cpuUsed = cpuMs(target.process.pid) - cpuBefore;

  // Requests cut off when the run ends may still reach the upstream: let them finish and the log drain.
  let calls = 0;
  let rows = 0;
  const deadline = Date.now() + 10_000;
  do {
    await new Promise((resolve) => setTimeout(resolve, 200));
    calls = (await upstreamCalls(stubUrl)) - callsBefore;
    rows = (await target.rows()) - rowsBefore;
  } while (rows !== calls && Date.now() < deadline);

  const problems: string[] = [];
  if (result.errors > 0) problems.push(`${result.errors} errors or timeouts`);
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx answers`);
  if (result.wrongBodies > 0) problems.push(`${result.wrongBodies} bodies other than {"ok":true}`);
  if (calls < result.requests || calls > result.requests + load.connections) {
    problems.push(`${calls} upstream calls for ${result.requests} answered requests`);
  }
  if (rows !== calls) problems.push(`${rows} activity-log rows for ${calls} successful upstream calls`);
  return { ...result, cpuMsPer1000: (cpuUsed / Math.max(1, result.requests)) * 1000, upstreamCalls: calls, rowsWritten: rows, problems };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
